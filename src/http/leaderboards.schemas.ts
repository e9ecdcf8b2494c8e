import { isParseError, parseDecimal } from '../domain/money/money.js';
import { LEADERBOARD_STATUSES, LEADERBOARD_TYPES } from '../leaderboards/leaderboard.rules.js';
import { paginationFields, queryBoolean } from './pagination.js';
import { z } from './validate.js';

export { GivePrizeBody, IdempotencyHeaders } from '../commands/admin-operations/give-prize.schemas.js';

/** Spec, Prize entry: position 1 to 50, usdPrize a number >= 0 (at most 8 decimals: USD figures have 8). */
export const PrizeEntry = z.strictObject({
  position: z.number().int().min(1).max(50),
  usdPrize: z
    .number()
    .min(0)
    .refine((n) => !isParseError(parseDecimal(String(n), 8)), 'at most 8 decimal places'),
});

export const ScheduleParams = z.object({ id: z.string().min(1).max(64) });

export const ScheduleBody = z
  .strictObject({
    enabled: z.boolean(),
    name: z.string().min(1).max(100),
    description: z.string().max(500),
    prizes: z
      .array(PrizeEntry)
      .max(50)
      .superRefine((prizes, ctx) => {
        const seen = new Set<number>();
        prizes.forEach((p, i) => {
          if (seen.has(p.position))
            ctx.addIssue({ code: 'custom', path: [i, 'position'], message: `position ${p.position} appears twice` });
          seen.add(p.position);
        });
      }),
  })
  .openapi('LeaderboardScheduleBody');

export const LeaderboardsQuery = z
  .object({
    withUsers: queryBoolean.optional(),
    withSchedule: queryBoolean.optional(),
    type: z.enum(LEADERBOARD_TYPES).optional(),
    status: z.enum(LEADERBOARD_STATUSES).optional(),
    sortOrder: z.enum(['asc', 'desc']).default('desc'),
    sortBy: z.enum(['created']).default('created'),
    ...paginationFields(30),
  })
  .openapi('LeaderboardsQuery');

export const LeaderboardParams = z.object({ leaderboardId: z.string().min(1).max(64) });
export const LeaderboardUserParams = LeaderboardParams.extend({ userId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

export const LeaderboardUsersQuery = z
  .object({
    search: z.string().max(100).optional().openapi({ description: 'Part of a username, or a user id (never an e-mail address)' }),
    isWinner: queryBoolean.optional(),
    isWaitingForPrice: queryBoolean.optional(),
    ...paginationFields(30),
  })
  .openapi('LeaderboardUsersQuery');
