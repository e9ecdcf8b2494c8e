import type pg from 'pg';
import type { AmlFlagRow } from './aml.js';

type Row = {
  id: string;
  user_id: string;
  kind: AmlFlagRow['kind'];
  linked_usd: string;
  threshold_usd: string;
  window_hours: number;
  withdrawal_id: string | null;
  status: AmlFlagRow['status'];
  assignee_user_id: string | null;
  note: string | null;
  raised_at: Date;
  cleared_at: Date | null;
  cleared_by_user_id: string | null;
};
const num = (v: string | null): number | null => (v === null ? null : Number(v));

/** Flags newest first (at most 500), open ones or cleared ones or all; numeric USD as text, never a float. */
export const listAmlFlags = async (pool: pg.Pool, status?: 'OPEN' | 'CLEARED'): Promise<AmlFlagRow[]> => {
  const { rows } = await pool.query<Row>(
    `SELECT id, user_id, kind, linked_usd::text AS linked_usd, threshold_usd::text AS threshold_usd, window_hours, withdrawal_id,
       status, assignee_user_id, note, raised_at, cleared_at, cleared_by_user_id
     FROM aml_flags WHERE ($1::text IS NULL OR status = $1) ORDER BY raised_at DESC, id LIMIT 500`,
    [status ?? null],
  );
  return rows.map((r) => ({
    id: r.id,
    userId: Number(r.user_id),
    kind: r.kind,
    linkedUsd: r.linked_usd,
    thresholdUsd: r.threshold_usd,
    windowHours: r.window_hours,
    withdrawalId: r.withdrawal_id,
    status: r.status,
    assigneeUserId: num(r.assignee_user_id),
    note: r.note,
    raisedAt: r.raised_at.toISOString(),
    clearedAt: r.cleared_at?.toISOString() ?? null,
    clearedByUserId: num(r.cleared_by_user_id),
  }));
};
