import { z } from './validate.js';

/** Response shapes for the OpenAPI documents only (requests use the route schemas themselves). */
const decimal = z.string().openapi({ example: '12.5' });
const deprecatedTotalLoss = decimal.openapi({ deprecated: true, description: 'Deprecated: use ggr (spec, Versioning).' });

export const SuccessResponse = z.object({ success: z.boolean() }).openapi('Success');
export const UntypedObject = z.looseObject({}).openapi('UntypedObject');
export const UntypedList = z.array(UntypedObject);
export const StringList = z.array(z.string());
export const Text = z.string();

export const Paginated = (name: string, item: z.ZodType = UntypedObject) => z.object({
  data: z.array(item), take: z.number().int(), page: z.number().int(), total: z.number().int(), totalPages: z.number().int(),
}).openapi(name);
export const PaginatedObjects = Paginated('PaginatedObjects');

export const UserStatsUsd = z.object({
  totalWagered: decimal, totalPayouts: decimal, totalDeposits: decimal, totalWithdraws: decimal, ltv: decimal, ggr: decimal,
  totalLoss: deprecatedTotalLoss, totalBets: z.number().int(),
  firstDepositAt: z.iso.datetime().nullable(), lastDepositAt: z.iso.datetime().nullable(), lastWageredAt: z.iso.datetime().nullable(),
}).openapi('UserStatsUsd');

export const UserRecord = z.looseObject({
  id: z.number().int(), username: z.string().nullable(), email: z.string().nullable(), vipLevel: z.number().int(),
  roles: z.array(z.object({ role: z.string(), userId: z.number().int() })), permissions: z.array(z.string()),
  isBanned: z.boolean(), banReason: z.string().nullable(), kyc: z.unknown(), notes: z.array(z.unknown()).optional(),
  usdBalance: z.unknown().optional(), statsUsd: UserStatsUsd.optional(), createdAt: z.iso.datetime(), updatedAt: z.iso.datetime(),
}).openapi('User');

export const AdminStats = z.object({
  totalWagered: decimal, totalPayouts: decimal, totalDeposits: decimal, totalWithdraws: decimal, ltv: decimal, ggr: decimal,
  avgBet: decimal, netDeposit: decimal, totalLoss: deprecatedTotalLoss, totalBets: z.number().int(), rtp: z.number(), winRate: z.number(),
}).openapi('AdminStats');

export const HealthResult = z.object({
  status: z.enum(['ok', 'error']), info: z.record(z.string(), z.unknown()), error: z.record(z.string(), z.unknown()),
  details: z.record(z.string(), z.unknown()),
}).openapi('HealthResult');
