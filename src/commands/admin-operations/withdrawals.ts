import { shortUserOf, type ShortUser } from '../../domain/user/short-user.js';
import { wageredUsd } from '../../read-models/user-stats-usd/user-stats-usd.queries.js';
import { orThrow } from '../errors.js';
import type { WithdrawalView } from '../ledger.types.js';
import type { AdminOperation, AdminOperationDeps } from './admin-operation.js';
import { WithdrawalIdBody, WithdrawalRejectBody } from './withdrawals.schemas.js';

/** Spec "Short user" from live user state; the VIP level from the user's wagered USD. */
const shortUser = async ({ auth, pool }: AdminOperationDeps, id: number | null): Promise<ShortUser | null> => {
  if (id === null) return null;
  const u = await auth.users.load(id);
  if (u.status !== 'registered') return null;
  return shortUserOf({
    id,
    username: u.username,
    isBanned: u.banned !== null,
    profile: u.profile as Record<string, unknown>,
    wageredUsd: await wageredUsd(pool, id),
  });
};

export const withdrawalRecord = async (deps: AdminOperationDeps, w: WithdrawalView) => ({
  ...w,
  user: await shortUser(deps, w.userId),
  confirmedByUser: await shortUser(deps, w.confirmedByUserId),
});
type WithdrawalRecord = Awaited<ReturnType<typeof withdrawalRecord>>;

export const withdrawApprove: AdminOperation<AdminOperationDeps, typeof WithdrawalIdBody, WithdrawalRecord> = {
  permission: 'withdrawals.approve',
  schema: WithdrawalIdBody,
  run: async (deps, { id }, adminUserId) => withdrawalRecord(deps, orThrow(await deps.ledger.approveWithdrawal(id, adminUserId))),
};

export const withdrawReject: AdminOperation<AdminOperationDeps, typeof WithdrawalRejectBody, WithdrawalRecord> = {
  permission: 'withdrawals.reject',
  schema: WithdrawalRejectBody,
  run: async (deps, { id, rejectReason }, adminUserId) =>
    withdrawalRecord(deps, orThrow(await deps.ledger.rejectWithdrawal(id, adminUserId, rejectReason))),
};
