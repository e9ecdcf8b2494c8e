import { storableDateTime, z } from './validate.js';

const userId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const ExclusionBody = z.object({ excludeUntil: storableDateTime, userId }).openapi('SelfExclusionBody');
export const LiftExclusionBody = z.object({ userId }).openapi('LiftSelfExclusionBody');
/** USD per bet; zero forbids betting, more than 8 decimals is refused. */
export const BetLimitBody = z
  .object({
    betLimit: z.string().regex(/^\d{1,20}(\.\d{1,8})?$/, 'must be a non-negative decimal with at most 8 decimals'),
    userId,
  })
  .openapi('GamblingLimitsBody');
/** decisions.md: `{id}` under /user-limits is the user's id. */
export const LimitsUserParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
