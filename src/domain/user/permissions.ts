/** Roles a user can hold. Every user holds `User`; back-office access needs Admin or SuperAdmin. */
export const ROLES = ['User', 'Admin', 'SuperAdmin'] as const;
export type Role = (typeof ROLES)[number];

/** Permission names that can be granted; SuperAdmin holds all of them. */
export const PERMISSIONS = [
  'user.view',
  'user.edit',
  'user.ban',
  'user.transactions.view',
  'user.bets.view',
  'geo.view',
  'geo.edit',
  'withdrawals.view',
  'withdrawals.block',
  'withdrawals.unblock',
  'withdrawals.approve',
  'withdrawals.reject',
  'withdrawals.retry',
  'dashboard.view',
  'faq.edit',
  'deposits.view',
  'leaderboard.edit',
  'leaderboard.view',
  'leaderboard.give-prize',
  'api-key.edit',
  'api-key.view',
  'system.logger',
  'chat.admin-action',
  'user-note.edit',
  'user-note.view',
  'user-note.delete',
  'user-limit.view',
  'user-limit.edit',
  'user-limit.delete',
  'casino.games.view',
  'casino.games.edit',
  'casino.games.commission.edit',
  'rakebacks.view',
  'affiliate.levels.view',
  'affiliate.users.view',
  'affiliate.find-one.view',
  'affiliate.find-one-stats.view',
  'tip.view',
  'admin-tips.view',
  'admin-tips.tip',
  'admin-tips.deduct-balance',
  'admin-users.view-admin-audit',
  'registration-info.view',
  'transaction.view',
  'affiliate.view',
  'affiliate.streamer.view',
  'affiliate-code.delete',
  'affiliate-code.create',
  'balance.view',
  'kyc.view',
  'kyc.edit',
  'promo.code.view',
  'promo.code.edit',
  'challenge.view',
  'challenge.edit',
  'challenge.action',
  'vip.application.action',
  'vip.application.view',
  'casino-bot.management',
  'casino-bot.view',
  'reconciliation.view',
  'reconciliation.manage',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const isPermission = (name: string): name is Permission => (PERMISSIONS as readonly string[]).includes(name);

export const holdsPermission = (
  who: Readonly<{ roles: readonly string[]; permissions: readonly string[] }>,
  permission: Permission,
): boolean => who.roles.includes('SuperAdmin') || who.permissions.includes(permission);

export const isStaff = (roles: readonly string[]): boolean => roles.includes('Admin') || roles.includes('SuperAdmin');

/**
 * Least privilege between admins over credentials: an actor may manage another account's credentials only if the
 * target is no SuperAdmin and holds no permission the actor lacks (a SuperAdmin may manage anyone's).
 */
export const mayManageCredentialsOf = (
  actor: Readonly<{ roles: readonly string[]; permissions: readonly string[] }>,
  target: Readonly<{ roles: readonly string[]; permissions: readonly string[] }>,
): boolean => {
  if (actor.roles.includes('SuperAdmin')) return true;
  if (target.roles.includes('SuperAdmin')) return false;
  return target.permissions.every((p) => actor.permissions.includes(p));
};
