import { REQUEST_CURRENCY_IDS } from '../../domain/money/currency.js';
import { MAX_DECIMAL_CHARS, z } from '../../shared/zod.js';

const DECIMAL = /^\d+(\.\d+)?$/;

export const GivePrizeBody = z
  .strictObject({
    currency: z.enum(REQUEST_CURRENCY_IDS),
    leaderboardId: z.string().min(1).max(64),
    userId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    usdAmount: z.string().max(MAX_DECIMAL_CHARS).regex(DECIMAL, 'must be a decimal number like "12.5"').optional(),
    fullUsdAmount: z.boolean().optional(),
  })
  .refine((b) => b.fullUsdAmount === true || b.usdAmount !== undefined, {
    path: ['usdAmount'],
    message: 'usdAmount is required unless fullUsdAmount is true',
  })
  .openapi('GivePrizeBody');

export const IdempotencyHeaders = z.object({ 'idempotency-key': z.string().min(1).max(200).optional() });
