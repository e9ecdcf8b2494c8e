import type pg from 'pg';
import { z } from 'zod';
import { AppError } from '../../shared/app-error.js';
import { fullUserOf } from '../../read-models/users/user-record.js';
import { orThrowUser } from '../errors.js';
import type { Users } from '../users.js';
import type { AdminOperation } from './admin-operation.js';
import { BanBody } from './ban-user.schemas.js';

const isSuperAdmin = (state: Awaited<ReturnType<Users['load']>>): boolean =>
  state.status === 'registered' && state.roles.includes('SuperAdmin');

/** Least privilege between admins: only a SuperAdmin may change a SuperAdmin (checked on both users' current state). */
export const guardSuperAdminTarget = async (users: Pick<Users, 'load'>, actorId: number, targetId: number): Promise<void> => {
  if (actorId === targetId) return;
  if (!isSuperAdmin(await users.load(targetId))) return;
  if (!isSuperAdmin(await users.load(actorId))) throw new AppError('forbidden', 'FORBIDDEN', 'Only a SuperAdmin may change a SuperAdmin');
};

/** Ends every session, refresh token and API key of a user (the authentication side's, handed in by the caller). */
export type EndAccess = (userId: number, reason: string, byUserId: number) => Promise<unknown>;

export const UserBanCommand = BanBody.extend({ userId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
export const banUser: AdminOperation<
  Readonly<{ users: Users; pool: pg.Pool; endAccess: EndAccess }>,
  typeof UserBanCommand,
  Awaited<ReturnType<typeof fullUserOf>>
> = {
  permission: 'user.ban',
  schema: UserBanCommand,
  run: async ({ users, pool, endAccess }, { userId, banReason }, adminUserId) => {
    await guardSuperAdminTarget(users, adminUserId, userId);
    const banned = orThrowUser(await users.execute(userId, { type: 'BanUser', data: { reason: banReason } }, adminUserId));
    // A ban ends every session, refresh token and API key; an unban later brings none of them back.
    await endAccess(userId, 'banned', adminUserId);
    return fullUserOf(pool, banned);
  },
};
