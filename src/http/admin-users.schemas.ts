import { PERMISSIONS, ROLES } from '../domain/user/permissions.js';
import { z } from './validate.js';

export const UserIdParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
export const RegistrationInfoParams = z.object({ userId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
export const PermissionParams = UserIdParams.extend({ name: z.enum(PERMISSIONS) });
export const BanBody = z.object({ banReason: z.string().trim().min(1).max(500) }).openapi('BanUserBody');
export const RolesBody = z.object({ roles: z.enum(ROLES) }).openapi('UserRolesBody');
export const PermissionsBody = z.object({ permissions: z.enum(PERMISSIONS) }).openapi('UserPermissionsBody');
export const SingleRoleBody = z.object({ username: z.string().min(1).max(64), role: z.enum(ROLES) }).openapi('SingleRoleBody');
