import { LIMIT_KINDS, LIMIT_WINDOWS } from '../domain/limits/gambling-limits.js';
import { z } from './validate.js';

const userId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const usd = z.string().regex(/^\d{1,20}(\.\d{1,8})?$/, 'must be a non-negative decimal with at most 8 decimals');

/** A deposit or loss limit over a rolling window, in USD; null removes it (after the 24-hour cooling-off). */
export const OwnGamblingLimitBody = z
  .object({ kind: z.enum(LIMIT_KINDS), window: z.enum(LIMIT_WINDOWS), limit: usd.nullable() })
  .openapi('OwnGamblingLimitBody');
export const GamblingLimitBody = OwnGamblingLimitBody.extend({ userId }).openapi('DepositLossLimitBody');

const Limit = z.object({
  kind: z.enum(LIMIT_KINDS),
  window: z.enum(LIMIT_WINDOWS),
  limit: z.string().nullable().openapi({ description: 'USD in force now; null: none' }),
  pending: z
    .object({ limit: z.string().nullable(), effectiveAt: z.string() })
    .nullable()
    .openapi({ description: 'A raise or removal waiting out its 24 hours; null: none' }),
  updatedAt: z.string().nullable(),
});
export const GamblingLimits = z.object({ userId: z.number().int(), limits: z.array(Limit) }).openapi('DepositLossLimits');
