import { required } from '../shared/zod.js';
import { currencyId, DecimalString, userId, withScales } from './money-fields.schemas.js';
import { storableDateTime, z } from './validate.js';

export const NETWORK_IDS = [
  'BSC',
  'ETH',
  'POLYGON',
  'SOL',
  'TRX',
  'BTC',
  'LTC',
  'ARETH',
  'OPTIMISM',
  'TON',
  'BASE',
  'AVAX',
  'OPBNB',
  'ETH_SEPOLIA',
  'NETWORK_X',
] as const;
export const PROVIDER_IDS = ['PROVIDER_A', 'PROVIDER_B', 'PROVIDER_C', 'TEST'] as const;

export const text = (max = 500) =>
  z
    .string({ error: required('a string') })
    .max(max, `must be at most ${max} characters`)
    .refine((s) => s.trim() !== '', 'must not be empty');
export const optionalText = (max = 500) =>
  z
    .string({ error: required('a string or null') })
    .max(max, `must be at most ${max} characters`)
    .nullable()
    .optional();
export const id = text(128);

const networkId = z.enum(NETWORK_IDS, { error: required(`one of ${NETWORK_IDS.join(', ')}`) });
const providerId = z.enum(PROVIDER_IDS, { error: required(`one of ${PROVIDER_IDS.join(', ')}`) });

export const GameIdentitySchema = z
  .object(
    {
      name: text(200),
      slug: text(200),
      type: text(100),
      provider: z.object({ name: text(200) }, { error: required('an object') }),
    },
    { error: required('an object') },
  )
  .openapi('GameIdentity');

/**
 * The caller's business time of the step (when the game server placed the bet, the provider confirmed): optional,
 * at most BUSINESS_TIME_MAX_SKEW_MS after the ledger's clock and at most BUSINESS_TIME_MAX_AGE_DAYS before it
 * (otherwise 400 naming the field); the recording time when absent. Not part of a retry's identity.
 */
export const effectiveAt = storableDateTime.optional().openapi({
  description:
    'Business time of this step (ISO 8601 with zone); default: the time the ledger records it. At most ' +
    'BUSINESS_TIME_MAX_SKEW_MS (60 s) later and BUSINESS_TIME_MAX_AGE_DAYS (400 days) earlier than that time. ' +
    'A retry with another effectiveAt answers the first result.',
  example: '2026-11-27T12:00:00Z',
});

export const IdParams = z.object({ id }).openapi('InternalIdParams');
export const UserIdParams = z.object({
  userId: z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .positive('must be a positive integer')
    .max(Number.MAX_SAFE_INTEGER),
});

export const IdempotencyHeaders = z.object({ 'idempotency-key': text(200).optional() });

export const CreateDepositBody = withScales(
  z.object({
    externalId: text(200),
    userId,
    providerId,
    networkId,
    currencyId,
    amount: DecimalString,
    usdAmount: DecimalString.optional(),
    txHash: optionalText(200),
    payAddress: optionalText(200),
    payMemo: optionalText(200),
    effectiveAt,
  }),
  [
    { field: 'amount', scale: 'currency', positive: true },
    { field: 'usdAmount', scale: 'usd', positive: false },
  ],
).openapi('InternalCreateDeposit');

export const DepositTxBody = z.object({ txHash: optionalText(200), effectiveAt }).openapi('InternalDepositTx');
export const DepositFailBody = z.object({ reason: text(500), effectiveAt }).openapi('InternalDepositFail');

export const CreateWithdrawalBody = withScales(
  z.object({
    userId,
    currencyId,
    networkId,
    providerId,
    amount: DecimalString,
    usdAmount: DecimalString.optional(),
    recipientAddress: text(200),
    recipientMemo: optionalText(200),
  }),
  [
    { field: 'amount', scale: 'currency', positive: true },
    { field: 'usdAmount', scale: 'usd', positive: false },
  ],
).openapi('InternalCreateWithdrawal');

export const AffiliateClaimBody = withScales(
  z.object({
    claimId: id,
    userId,
    currencyId,
    amount: DecimalString,
    usdAmount: DecimalString.optional(),
    effectiveAt,
  }),
  [
    { field: 'amount', scale: 'currency', positive: true },
    { field: 'usdAmount', scale: 'usd', positive: false },
  ],
).openapi('InternalAffiliateClaim');

export const WithdrawalCompleteBody = z.object({ txHash: text(200), effectiveAt }).openapi('InternalWithdrawalComplete');
export const WithdrawalFailBody = z.object({ failedReason: text(500), effectiveAt }).openapi('InternalWithdrawalFail');
