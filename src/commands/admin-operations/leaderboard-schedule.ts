import type pg from 'pg';
import type { RecordedAction } from '../../shared/admin-actions.js';

export type ScheduleChange = Readonly<{
  enabled: boolean;
  name: string;
  description: string;
  prizes: readonly Readonly<{ position: number }>[];
}>;

/** The change and its admin audit record in one statement, both or neither; false when there is no such schedule. */
export const updateLeaderboardSchedule = async (
  pool: pg.Pool,
  id: string,
  change: ScheduleChange,
  adminUserId: number,
): Promise<boolean> => {
  const { rowCount } = await pool.query(
    `WITH before AS (SELECT id, enabled, name, description, prizes FROM leaderboard_schedules WHERE id = $1),
       after AS (UPDATE leaderboard_schedules SET enabled = $2, name = $3, description = $4, prizes = $5, updated_at = now() WHERE id = $1
         RETURNING id, enabled, name, description, prizes)
       INSERT INTO admin_audit_records (admin_user_id, action, details)
       SELECT $6, $7, jsonb_build_object('before', to_jsonb(before), 'after', to_jsonb(after)) FROM after JOIN before USING (id)`,
    [
      id,
      change.enabled,
      change.name,
      change.description,
      JSON.stringify([...change.prizes].sort((a, b) => a.position - b.position)),
      adminUserId,
      'leaderboard.update-schedule' satisfies RecordedAction,
    ],
  );
  return Boolean(rowCount);
};
