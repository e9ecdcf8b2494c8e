import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { z } from 'zod';
import { chatPublisher, createChat, type ChatError } from '../../commands/chat.js';
import { chatError } from '../../commands/chat.errors.js';
import type { Logger } from '../../infra/logger.js';
import type { ServerEventBus } from '../../infra/bus.js';
import { type ClientEventContext, type ClientEventHandler } from '../protocol.js';
import { chatRoom } from '../../shared/rooms.js';

export type ChatHandlerDeps = Readonly<{ pool: pg.Pool; bus: ServerEventBus; logger?: Logger }>;

export const CHAT_TEXT_MAX = 500;
export const CHAT_PAGE_MAX = 50;
export const CHAT_PAGE_DEFAULT = 20;

const RoomId = z.string().trim().min(1).max(128);
const RoomData = z.object({ roomId: RoomId });
const SendData = z.object({ roomId: RoomId, text: z.string().trim().min(1).max(CHAT_TEXT_MAX) });
const HistoryData = z.object({
  roomId: RoomId,
  take: z.number().int().min(1).max(CHAT_PAGE_MAX).default(CHAT_PAGE_DEFAULT),
  before: z
    .string()
    .regex(/^[1-9]\d{0,17}$/, 'must be a message id')
    .optional(),
});
const NoData = z.object({}).nullish();

const orThrowChat = <T>(result: Either<ChatError, T>): T => {
  if (isLeft(result)) throw chatError(result.left);
  return result.right;
};

/** Access rule 'required' guarantees a user; this narrows the type. */
const userIdOf = (ctx: ClientEventContext): number => ctx.user!.userId;

export const chatHandlers = (deps: ChatHandlerDeps): ClientEventHandler[] => {
  const chat = createChat({ pool: deps.pool, publish: chatPublisher(deps.bus, deps.logger) });
  const existingRoom = async (roomId: string): Promise<string> => {
    if (!(await chat.room(roomId))) throw chatError({ _tag: 'ChatRoomNotFound', roomId });
    return chatRoom(roomId);
  };

  return [
    {
      event: 'ChatJoin',
      access: 'required',
      schema: RoomData,
      handle: async ({ roomId }: z.output<typeof RoomData>, ctx) => {
        const room = await existingRoom(roomId);
        await ctx.join(room);
        return { room };
      },
    },
    {
      event: 'ChatLeave',
      access: 'required',
      schema: RoomData,
      handle: async ({ roomId }: z.output<typeof RoomData>, ctx) => {
        const room = await existingRoom(roomId);
        await ctx.leave(room);
        return { room };
      },
    },
    {
      event: 'ChatSendMessage',
      access: 'required',
      schema: SendData,
      handle: async ({ roomId, text }: z.output<typeof SendData>, ctx) =>
        orThrowChat(await chat.send({ roomId, text, userId: userIdOf(ctx) })),
    },
    {
      event: 'ChatGetMessages',
      access: 'optional',
      schema: HistoryData,
      handle: async (data: z.output<typeof HistoryData>) => orThrowChat(await chat.history(data)),
    },
    {
      event: 'ChatGetRooms',
      access: 'optional',
      schema: NoData,
      handle: () => chat.rooms(),
    },
  ];
};
