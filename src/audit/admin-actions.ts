import type pg from 'pg';

/**
 * The admin audit log's vocabulary (GET /admin-audit, issue 7): one stable name per kind of admin action.
 * Actions recorded by events come from the admin-audit projection; the few admin changes that are not
 * events (FAQ entries, leaderboard schedules) are recorded by `recordAdminAction` in the change's own
 * transaction; chat moderations are read from `chat_moderation`, which is already their record.
 */
export const EVENT_ACTIONS = [
  // wallet (money)
  'tip',
  'deduct-balance',
  'set-balance',
  'leaderboard.give-prize',
  'withdrawal.approve',
  'withdrawal.reject',
  'withdrawal.retry',
  // users
  'user.create',
  'user.set-username',
  'user.update-profile',
  'user.ban',
  'user.unban',
  'user.disable-mfa',
  'role.add',
  'role.remove',
  'permission.add',
  'permission.remove',
  // responsible-gambling limits, API keys, site configuration
  'limits.set-self-exclusion',
  'limits.lift-self-exclusion',
  'limits.set-bet-limit',
  'api-key.issue',
  'api-key.revoke',
  'config.update',
] as const;
export const RECORDED_ACTIONS = ['faq.create', 'faq.update', 'faq.delete', 'leaderboard.update-schedule'] as const;
export const CHAT_ACTIONS = ['chat.delete-message', 'chat.set-rate-limit'] as const;
export const ADMIN_AUDIT_ACTIONS = [...EVENT_ACTIONS, ...RECORDED_ACTIONS, ...CHAT_ACTIONS] as const;

export type EventAction = (typeof EVENT_ACTIONS)[number];
export type RecordedAction = (typeof RECORDED_ACTIONS)[number];
export type AdminAuditAction = (typeof ADMIN_AUDIT_ACTIONS)[number];

export type AdminActionRecord = Readonly<{
  adminUserId: number;
  action: RecordedAction;
  targetUserId?: number | null;
  details: Readonly<Record<string, unknown>>;
}>;

/**
 * Records an admin change that is not an event, on the connection (and so in the transaction) that makes
 * the change: both commit or neither does. The time is the database's clock at the write.
 */
export const recordAdminAction = async (db: Pick<pg.ClientBase, 'query'>, record: AdminActionRecord): Promise<void> => {
  await db.query('INSERT INTO admin_audit_records (admin_user_id, action, target_user_id, details) VALUES ($1, $2, $3, $4)', [
    record.adminUserId,
    record.action,
    record.targetUserId ?? null,
    JSON.stringify(record.details),
  ]);
};
