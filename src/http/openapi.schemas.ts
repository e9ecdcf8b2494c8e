import { KYC_LEVELS } from '../domain/user/kyc.js';
import { z } from './validate.js';

/** Response shapes for the OpenAPI documents only (requests use the route schemas themselves). */
const decimal = z.string().openapi({ example: '12.5' });
const deprecatedTotalLoss = decimal.openapi({ deprecated: true, description: 'Deprecated: use ggr (spec, Versioning).' });

/** The USD totals a user's stats and the back office's overall stats both report. */
const usdTotals = {
  totalWagered: decimal,
  totalPayouts: decimal,
  totalDeposits: decimal,
  totalWithdraws: decimal,
  ltv: decimal,
  ggr: decimal,
};

export const SuccessResponse = z.object({ success: z.boolean() }).openapi('Success');
export const UntypedObject = z.looseObject({}).openapi('UntypedObject');
export const UntypedList = z.array(UntypedObject);
export const StringList = z.array(z.string());
export const Text = z.string();

export const Paginated = (name: string, item: z.ZodType = UntypedObject) =>
  z
    .object({
      data: z.array(item),
      take: z.number().int(),
      page: z.number().int(),
      total: z.number().int(),
      totalPages: z.number().int(),
    })
    .openapi(name);
export const PaginatedObjects = Paginated('PaginatedObjects');

export const UserStatsUsd = z
  .object({
    ...usdTotals,
    totalLoss: deprecatedTotalLoss,
    totalBets: z.number().int(),
    firstDepositAt: z.iso.datetime().nullable(),
    lastDepositAt: z.iso.datetime().nullable(),
    lastWageredAt: z.iso.datetime().nullable(),
  })
  .openapi('UserStatsUsd');

const nullableText = z.string().nullable();
/** The spec's User KYC record; the personal fields stay with the KYC provider and answer null (docs/compliance.md). */
export const UserKyc = z
  .object({
    gender: z.enum(['MALE', 'FEMALE', 'OTHER']).nullable(),
    level: z.enum(KYC_LEVELS),
    firstName: nullableText,
    lastName: nullableText,
    countryCode: nullableText,
    address: nullableText,
    postalCode: nullableText,
    city: nullableText,
    occupation: nullableText,
    dateOfBirth: z.iso.datetime().nullable(),
    verificationPending: z.boolean(),
    userId: z.number().int(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('UserKyc');

export const UserRecord = z
  .looseObject({
    id: z.number().int(),
    username: z.string().nullable(),
    email: z.string().nullable(),
    vipLevel: z.number().int(),
    roles: z.array(z.object({ role: z.string(), userId: z.number().int() })),
    permissions: z.array(z.string()),
    isBanned: z.boolean(),
    banReason: z.string().nullable(),
    kyc: UserKyc.nullable(),
    notes: z.array(z.unknown()).optional(),
    usdBalance: z.unknown().optional(),
    statsUsd: UserStatsUsd.optional(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('User');

/** PUT /user/{id}/permissions and DELETE /user/{id}/permissions/{name}: the permissions the user holds afterwards. */
export const UserPermissions = z.object({ userId: z.number().int(), permissions: z.array(z.string()) }).openapi('UserPermissions');

export const AdminStats = z
  .object({
    ...usdTotals,
    avgBet: decimal,
    netDeposit: decimal,
    totalLoss: deprecatedTotalLoss,
    totalBets: z.number().int(),
    rtp: z.number(),
    winRate: z.number(),
  })
  .openapi('AdminStats');

export const HealthResult = z
  .object({
    status: z.enum(['ok', 'error']),
    info: z.record(z.string(), z.unknown()),
    error: z.record(z.string(), z.unknown()),
    details: z.record(z.string(), z.unknown()),
  })
  .openapi('HealthResult');

/** Spec "Short user" as the back office answers it (lists and withdrawal commands). */
export const ShortUser = z
  .object({
    id: z.number().int(),
    username: z.string(),
    isPrivate: z.boolean(),
    avatar: z.string(),
    vipLevel: z.number().int(),
    isBanned: z.boolean(),
  })
  .openapi('ShortUser');

export const WithdrawalRecord = z
  .object({
    id: z.string(),
    userId: z.number().int(),
    currencyId: z.string(),
    networkId: z.string(),
    providerId: z.string(),
    amount: decimal,
    usdAmount: decimal,
    status: z.enum(['PENDING', 'CONFIRMED', 'COMPLETE', 'DENIED', 'FAILED']),
    recipientAddress: z.string(),
    recipientMemo: z.string().nullable(),
    transactionId: z.string(),
    txHash: z.string().nullable(),
    rejectReason: z.string().nullable(),
    failedReason: z.string().nullable(),
    confirmedAt: z.string().nullable(),
    confirmedByUserId: z.number().int().nullable(),
    confirmations: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
    user: ShortUser.nullable(),
    confirmedByUser: ShortUser.nullable(),
  })
  .openapi('WithdrawalRecord');

export const BalanceRecord = z.object({ userId: z.number().int(), currencyId: z.string(), balance: decimal }).openapi('BalanceRecord');

/** GET /user/stats/transactions: one period (UTC start), Σ usdAmount of the completed deposits or withdrawals and their count. */
export const TransactionBucket = z.object({ period: z.string(), amount: decimal, count: z.number().int() }).openapi('TransactionBucket');

export const FaqEntry = z
  .object({ id: z.number().int(), title: z.string(), text: z.string(), order: z.number().int() })
  .openapi('FaqEntry');
export const FaqList = z.object({ data: z.array(FaqEntry) }).openapi('FaqList');

export const ChatModeration = z
  .object({
    id: z.string(),
    action: z.enum(['delete_message', 'set_rate_limit']),
    args: z.looseObject({}),
    adminUserId: z.number().int(),
    createdAt: z.string(),
    appliedAt: z.string(),
  })
  .openapi('ChatModeration');

export const SiteConfigSection = z
  .object({
    code: z.string(),
    config: z.looseObject({}),
    revision: z.number().int(),
    updatedByUserId: z.number().int(),
    updatedAt: z.string(),
  })
  .openapi('SiteConfigSection');
/** A section never saved: an empty config and no revision (the first save answers revision 0). */
export const UnsetSiteConfigSection = z
  .object({
    code: z.string(),
    config: z.strictObject({}),
    revision: z.null(),
    updatedByUserId: z.null(),
    updatedAt: z.null(),
  })
  .openapi('UnsetSiteConfigSection');
export const SiteConfigSectionOrUnset = z.union([SiteConfigSection, UnsetSiteConfigSection]);

/** Nothing to show (no active self-exclusion, no bet limit, no API key): the routes answer `{}`. */
const Nothing = z.strictObject({}).openapi('Nothing');

export const SelfExclusion = z
  .object({
    id: z.number().int(),
    userId: z.number().int(),
    expiresAt: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('SelfExclusion');
export const SelfExclusionOrNothing = z.union([SelfExclusion, Nothing]);
export const BetLimitRecord = z
  .object({
    id: z.number().int(),
    userId: z.number().int(),
    betLimit: decimal.openapi({ description: 'USD' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('BetLimit');
export const BetLimitOrNothing = z.union([BetLimitRecord, Nothing]);

export const ApiKeyRecord = z
  .object({
    id: z.string(),
    userId: z.number().int(),
    prefix: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('ApiKey');
export const ApiKeyOrNothing = z.union([ApiKeyRecord, Nothing]);
/** The secret is in this answer only; it is stored hashed. */
export const IssuedApiKey = ApiKeyRecord.extend({ key: z.string() }).openapi('IssuedApiKey');

export const RegistrationInfo = z
  .object({
    userId: z.number().int(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    country: z.string().nullable(),
    referrer: z.string().nullable(),
    referrerCode: z.string().nullable(),
    provider: z.string(),
    createdAt: z.string(),
  })
  .openapi('RegistrationInfo');
