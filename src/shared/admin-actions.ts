/** The admin audit log's vocabulary (GET /admin-audit): one stable name per kind of admin action. */
export const EVENT_ACTIONS = [
  'tip',
  'deduct-balance',
  'set-balance',
  'leaderboard.give-prize',
  'withdrawal.approve',
  'withdrawal.reject',
  'withdrawal.retry',
  'deposit.release',
  'deposit.return',
  'user.create',
  'user.set-username',
  'user.update-profile',
  'user.ban',
  'user.unban',
  'user.sign-out',
  'user.disable-mfa',
  'user.erase',
  'user.set-kyc-level',
  'role.add',
  'role.remove',
  'permission.add',
  'permission.remove',
  'limits.set-self-exclusion',
  'limits.lift-self-exclusion',
  'limits.set-bet-limit',
  'limits.set-gambling-limit',
  'aml.assign-flag',
  'aml.clear-flag',
  'api-key.issue',
  'api-key.revoke',
  'config.update',
  'period.close',
] as const;
export const RECORDED_ACTIONS = [
  'faq.create',
  'faq.update',
  'faq.delete',
  'leaderboard.update-schedule',
  'reconciliation.upload',
  'reconciliation.resolve',
  'monitor.create',
  'monitor.webhook-create',
  'monitor.set-enabled',
  'monitor.webhook-enable',
] as const;
export const CHAT_ACTIONS = ['chat.delete-message', 'chat.set-rate-limit'] as const;
export const ADMIN_AUDIT_ACTIONS = [...EVENT_ACTIONS, ...RECORDED_ACTIONS, ...CHAT_ACTIONS] as const;

export type EventAction = (typeof EVENT_ACTIONS)[number];
export type RecordedAction = (typeof RECORDED_ACTIONS)[number];
export type AdminAuditAction = (typeof ADMIN_AUDIT_ACTIONS)[number];
