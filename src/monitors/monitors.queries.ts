import type pg from 'pg';

type Db = Pick<pg.ClientBase, 'query'>;
const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export const insertMonitor = async (db: Db, type: string, thresholdUsd: string | null, windowHours: number | null, adminUserId: number) => {
  const { rows } = await db.query<{ id: string; created_at: Date }>(
    `INSERT INTO monitors (type, threshold_usd, window_hours, created_by, created_at) VALUES ($1, $2, $3, $4, now())
     RETURNING id, created_at`,
    [type, thresholdUsd, windowHours, adminUserId],
  );
  const row = rows[0]!;
  return { id: row.id, type, thresholdUsd, windowHours, enabled: true, createdBy: adminUserId, createdAt: row.created_at.toISOString() };
};

export const listMonitors = async (db: Db) => {
  const { rows } = await db.query<{
    id: string;
    type: string;
    threshold: string | null;
    window_hours: number | null;
    enabled: boolean;
    created_by: string;
    created_at: Date;
  }>(
    `SELECT id, type, trim_scale(threshold_usd)::text AS threshold, window_hours, enabled, created_by, created_at
     FROM monitors ORDER BY id`,
  );
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    thresholdUsd: r.threshold,
    windowHours: r.window_hours,
    enabled: r.enabled,
    createdBy: Number(r.created_by),
    createdAt: r.created_at.toISOString(),
  }));
};

export const listAlerts = async (db: Db, limit: number) => {
  const { rows } = await db.query<{
    id: string;
    monitor_id: string;
    monitor_type: string;
    subject: string;
    user_id: string | null;
    amount: string | null;
    raised_at: Date;
    delivered: number;
    pending: number;
  }>(
    `SELECT a.id, a.monitor_id, a.monitor_type, a.subject, a.user_id, trim_scale(a.amount_usd)::text AS amount, a.raised_at,
       (SELECT count(*) FROM monitor_deliveries d WHERE d.alert_id = a.id AND d.delivered_at IS NOT NULL)::int AS delivered,
       (SELECT count(*) FROM monitor_deliveries d WHERE d.alert_id = a.id AND d.delivered_at IS NULL)::int AS pending
     FROM monitor_alerts a ORDER BY a.raised_at DESC, a.id DESC LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({
    id: r.id,
    monitorId: r.monitor_id,
    type: r.monitor_type,
    subject: r.subject,
    userId: r.user_id === null ? null : Number(r.user_id),
    amountUsd: r.amount,
    raisedAt: r.raised_at.toISOString(),
    delivered: r.delivered,
    pending: r.pending,
  }));
};

export const insertWebhook = async (db: Db, monitorType: string, url: string, secret: string, adminUserId: number) => {
  const { rows } = await db.query<{ id: string; created_at: Date }>(
    `INSERT INTO monitor_webhooks (monitor_type, url, secret, created_by, created_at) VALUES ($1, $2, $3, $4, now())
     RETURNING id, created_at`,
    [monitorType, url, secret, adminUserId],
  );
  const row = rows[0]!;
  return { id: row.id, monitorType, url, state: 'active', failingSince: null, disabledAt: null, createdAt: row.created_at.toISOString() };
};

export const listWebhooks = async (db: Db) => {
  const { rows } = await db.query<{
    id: string;
    monitor_type: string;
    url: string;
    failing_since: Date | null;
    disabled_at: Date | null;
    created_at: Date;
  }>('SELECT id, monitor_type, url, failing_since, disabled_at, created_at FROM monitor_webhooks ORDER BY id');
  return rows.map((r) => ({
    id: r.id,
    monitorType: r.monitor_type,
    url: r.url,
    state: r.disabled_at ? 'disabled' : r.failing_since ? 'failing' : 'active',
    failingSince: iso(r.failing_since),
    disabledAt: iso(r.disabled_at),
    createdAt: r.created_at.toISOString(),
  }));
};

/** Whether the monitor exists; a disabled monitor fires no more alerts. */
export const setMonitorEnabled = async (db: Db, id: string, enabled: boolean): Promise<boolean> =>
  ((await db.query('UPDATE monitors SET enabled = $2 WHERE id = $1', [id, enabled])).rowCount ?? 0) > 0;

/** Live again with a clean record; its undelivered deliveries are due at once. Whether the webhook exists. */
export const enableWebhook = async (db: Db, id: string): Promise<boolean> => {
  const { rowCount } = await db.query('UPDATE monitor_webhooks SET disabled_at = NULL, failing_since = NULL WHERE id = $1', [id]);
  if (!rowCount) return false;
  await db.query(
    'UPDATE monitor_deliveries SET next_attempt_at = least(next_attempt_at, now()) WHERE webhook_id = $1 AND delivered_at IS NULL',
    [id],
  );
  return true;
};
