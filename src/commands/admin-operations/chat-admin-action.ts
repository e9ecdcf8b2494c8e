import { isLeft } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { z } from 'zod';
import type { Logger } from '../../infra/logger.js';
import type { ServerEventBus } from '../../infra/bus.js';
import { chatPublisher } from '../chat.js';
import { chatError } from '../chat.errors.js';
import { recordChatAdminAction, type ChatModeration } from '../content.js';
import type { AdminOperation } from './admin-operation.js';
import { CHAT_ACTION_ARGS, ChatAdminActionBody } from './chat-admin-action.schemas.js';

/** Checked in two steps, `action` then the `args` it implies, so an error names <root>.action or <root>.args.<field>. */
const ChatAdminActionCommand = ChatAdminActionBody.pipe(
  z.discriminatedUnion('action', [
    z.object({ action: z.literal('delete_message'), args: CHAT_ACTION_ARGS.delete_message }),
    z.object({ action: z.literal('set_rate_limit'), args: CHAT_ACTION_ARGS.set_rate_limit }),
  ]),
);

/** Without a bus (a back office with no gateway), a deletion applies but nothing is pushed. */
export type ChatAdminDeps = Readonly<{ pool: pg.Pool; bus?: ServerEventBus | undefined; logger?: Logger | undefined }>;

export const chatAdminAction: AdminOperation<ChatAdminDeps, typeof ChatAdminActionCommand, ChatModeration> = {
  permission: 'chat.admin-action',
  schema: ChatAdminActionCommand,
  run: async ({ pool, bus, logger }, input, adminUserId) => {
    const done = await recordChatAdminAction(pool, input, adminUserId, bus && chatPublisher(bus, logger));
    if (isLeft(done)) throw chatError(done.left);
    return done.right;
  },
};
