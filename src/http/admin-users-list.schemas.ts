import { PERMISSIONS, ROLES } from '../domain/user/permissions.js';
import { passwordProblem } from '../auth/passwords.js';
import { Username } from './auth.schemas.js';
import { DateFilter, DecimalFilter, IntFilter, jsonOrObject } from './filters.js';
import { paginationFields, queryBoolean } from './pagination.js';
import { z } from './validate.js';

export const USER_SORTS = [
  'id',
  'username',
  'email',
  'createdAt',
  'totalWagered',
  'totalLoss',
  'ggr',
  'vipLevel',
  'ltv',
  'balance',
  'lastLoginAt',
] as const;

export const UserFilter = z
  .strictObject({
    vipLevel: IntFilter.optional(),
    statsUsd: z.strictObject({ totalWagered: DecimalFilter.optional(), ltv: DecimalFilter.optional() }).optional(),
    balancePlatformToken: z.strictObject({ amount: DecimalFilter.optional() }).optional(),
    createdAt: DateFilter.optional(),
  })
  .openapi('UserFilter');

const listFields = {
  sortBy: z.enum(USER_SORTS),
  sortOrder: z.enum(['asc', 'desc']),
  isBanned: queryBoolean.optional(),
  withPermissions: queryBoolean.default(false),
  withRoles: queryBoolean.default(false),
  withNotes: queryBoolean.default(true),
  role: z.enum(ROLES).optional(),
  withBalance: queryBoolean.default(false),
  withStatsUsd: queryBoolean.default(false),
  search: z.string().trim().min(1).max(100).optional(),
  ...paginationFields(20),
};

export const UsersQuery = z.object({ ...listFields, where: jsonOrObject(UserFilter).optional() }).openapi('UsersQuery');
export const UsersBody = z.object({ ...listFields, where: UserFilter.optional() }).openapi('UsersBody');
export type UsersListRequest = z.output<typeof UsersBody>;

export const CreateAdminUserBody = z
  .object({
    username: Username,
    password: z.string().superRefine((value, ctx) => {
      const problem = passwordProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: `Password ${problem}` });
    }),
    permissions: z.array(z.enum(PERMISSIONS)).max(PERMISSIONS.length).default([]),
    email: z.email().max(254).optional(),
  })
  .openapi('CreateAdminUserBody');

export const UserSearchQuery = z
  .object({
    search: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
    ...paginationFields(20),
  })
  .openapi('UserSearchQuery');
export const UserSearchHit = z
  .object({
    id: z.number().int(),
    username: z.string().nullable(),
    email: z.string().nullable(),
    isBanned: z.boolean(),
    roles: z.array(z.string()),
    createdAt: z.iso.datetime(),
  })
  .openapi('UserSearchHit');
