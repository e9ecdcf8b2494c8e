import type pg from 'pg';
import type { RecordedAction } from '../shared/admin-actions.js';

export type AdminActionRecord = Readonly<{
  adminUserId: number;
  action: RecordedAction;
  targetUserId?: number | null;
  details: Readonly<Record<string, unknown>>;
}>;

/** Written on the connection that makes the change, so both commit or neither. */
export const recordAdminAction = async (db: Pick<pg.ClientBase, 'query'>, record: AdminActionRecord): Promise<void> => {
  await db.query('INSERT INTO admin_audit_records (admin_user_id, action, target_user_id, details) VALUES ($1, $2, $3, $4)', [
    record.adminUserId,
    record.action,
    record.targetUserId ?? null,
    JSON.stringify(record.details),
  ]);
};
