import { BET_STATUSES, DEPOSIT_STATUSES, WITHDRAWAL_STATUSES } from '../domain/wallet/wallet.events.js';
import { GameIdentitySchema } from './internal.schemas.js';
import { z } from './validate.js';

/** What the internal ledger API answers, for its OpenAPI document only (the ledger's views, ledger.types.ts). */
const decimal = z.string().openapi({ example: '12.5' });
const nullableText = z.string().nullable();

export const InternalDeposit = z
  .object({
    id: z.string(),
    userId: z.number().int(),
    externalId: z.string(),
    providerId: z.string(),
    networkId: z.string(),
    currencyId: z.string(),
    amount: decimal,
    usdAmount: decimal,
    txHash: nullableText,
    payAddress: nullableText,
    payMemo: nullableText,
    status: z.enum(DEPOSIT_STATUSES),
    transactionId: nullableText,
    affiliateAmount: z.null(),
    depositBonus: z.null(),
    affiliateCodeId: z.null(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('InternalDeposit');

export const InternalBet = z
  .object({
    id: z.string(),
    userId: z.number().int(),
    roundId: z.string(),
    gameId: z.number().int(),
    gameIdentity: GameIdentitySchema,
    currencyId: z.string(),
    amount: decimal,
    usdAmount: decimal,
    payout: decimal,
    usdPayout: decimal,
    status: z.enum(BET_STATUSES),
    multiplier: z.number().nullable(),
    errorDetails: nullableText,
    createdAt: z.string(),
    updatedAt: z.string(),
    settledAt: nullableText,
  })
  .openapi('InternalBet');

export const InternalWithdrawal = z
  .object({
    id: z.string(),
    userId: z.number().int(),
    currencyId: z.string(),
    networkId: z.string(),
    providerId: z.string(),
    amount: decimal,
    usdAmount: decimal,
    recipientAddress: z.string(),
    recipientMemo: nullableText,
    status: z.enum(WITHDRAWAL_STATUSES),
    transactionId: z.string(),
    txHash: nullableText,
    rejectReason: nullableText,
    failedReason: nullableText,
    confirmedAt: nullableText,
    confirmedByUserId: z.number().int().nullable(),
    confirmations: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('InternalWithdrawal');

export const InternalAffiliateClaim = z
  .object({
    claimId: z.string(),
    userId: z.number().int(),
    currencyId: z.string(),
    amount: decimal,
    usdAmount: decimal,
    transactionId: z.string(),
    balance: decimal,
  })
  .openapi('InternalAffiliateClaimResult');

export const InternalBalances = z
  .array(z.object({ userId: z.number().int(), currencyId: z.string(), balance: decimal }).openapi('InternalBalance'))
  .openapi('InternalBalances');

/** A command's two successes: 201 when it did something, 200 when it was a repeat answered with the first result. */
export const createdOrRepeat = (what: string, schema: z.ZodType, key: string) => ({
  201: { description: `${what} recorded`, schema },
  200: { description: `A repeat of ${key} with the same terms: the first result, nothing recorded again`, schema },
});
