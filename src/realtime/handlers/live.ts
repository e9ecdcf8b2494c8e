import { z } from 'zod';
import { type ClientEventHandler } from '../protocol.js';
import { LIVE_BETS_ROOM, liveDropRoom } from '../../shared/rooms.js';

/** A game slug as the catalogue spells it: lower-case letters and digits, words joined by '-' or '_'. */
export const Slug = z
  .string()
  .max(100)
  .regex(/^[a-z0-9]+(?:[-_][a-z0-9]+)*$/, 'must be a game slug like "sweet-bonanza"');
const SlugData = z.object({ slug: Slug });
/** socket.io sends a missing argument as null; extra keys are ignored. */
const NoData = z.object({}).nullish();

type Room = Readonly<{ room: string }>;

/** Public feeds: anonymous sockets welcome. */
export const liveHandlers = (): ClientEventHandler[] => [
  {
    event: 'LiveDropJoin',
    access: 'optional',
    schema: SlugData,
    handle: async ({ slug }: z.output<typeof SlugData>, ctx): Promise<Room> => {
      await ctx.join(liveDropRoom(slug));
      return { room: liveDropRoom(slug) };
    },
  },
  {
    event: 'LiveDropLeave',
    access: 'optional',
    schema: SlugData,
    handle: async ({ slug }: z.output<typeof SlugData>, ctx): Promise<Room> => {
      await ctx.leave(liveDropRoom(slug));
      return { room: liveDropRoom(slug) };
    },
  },
  {
    event: 'LiveBetsJoin',
    access: 'optional',
    schema: NoData,
    handle: async (_data, ctx): Promise<Room> => {
      await ctx.join(LIVE_BETS_ROOM);
      return { room: LIVE_BETS_ROOM };
    },
  },
  {
    event: 'LiveBetsLeave',
    access: 'optional',
    schema: NoData,
    handle: async (_data, ctx): Promise<Room> => {
      await ctx.leave(LIVE_BETS_ROOM);
      return { room: LIVE_BETS_ROOM };
    },
  },
];
