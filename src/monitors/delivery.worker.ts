import { createHmac } from 'node:crypto';
import type pg from 'pg';

export type DeliveryWorkerOptions = Readonly<{
  pool: pg.Pool;
  clock: () => Date;
  /** One POST's limit; a slower receiver counts as a failure. */
  timeoutMs?: number;
  /** The first retry's delay, doubled on each further failure up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A webhook failing without a success for this long is disabled (a day by default). */
  disableAfterMs?: number;
  pollMs?: number;
  batch?: number;
  /** A pass that failed (e.g. the database away); the next poll tries again. */
  onError?: (error: unknown) => void;
}>;

export const SIGNATURE_HEADER = 'x-monitor-signature';
export const DELIVERY_ID_HEADER = 'x-monitor-delivery-id';

/** `sha256=` and the hex HMAC-SHA256 of the body under the webhook's secret. */
export const signBody = (secret: string, body: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** The delay before attempt `attempts + 1`, after `attempts` failures: base * 2^(attempts - 1), at most max. */
export const backoffMs = (attempts: number, baseMs: number, maxMs: number): number =>
  Math.min(maxMs, baseMs * 2 ** Math.min(30, Math.max(0, attempts - 1)));

type Due = Readonly<{ id: string; webhook_id: string; body: string; attempts: number; url: string; secret: string }>;

/** Claims due deliveries by moving their next attempt past the POST's limit: a crash mid-POST leaves them due again later. */
const CLAIM = `
UPDATE monitor_deliveries d SET attempts = d.attempts + 1, next_attempt_at = $1::timestamptz + make_interval(secs => $2::float8 / 1000)
FROM monitor_webhooks w
WHERE w.id = d.webhook_id AND d.id IN (
  SELECT d2.id FROM monitor_deliveries d2 JOIN monitor_webhooks w2 ON w2.id = d2.webhook_id
  WHERE d2.delivered_at IS NULL AND d2.next_attempt_at <= $1 AND w2.disabled_at IS NULL
  ORDER BY d2.next_attempt_at, d2.id LIMIT $3 FOR UPDATE OF d2 SKIP LOCKED)
RETURNING d.id, d.webhook_id, d.body, d.attempts, w.url, w.secret`;

const post = async (due: Due, timeoutMs: number): Promise<string | undefined> => {
  try {
    const res = await fetch(due.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [DELIVERY_ID_HEADER]: due.id, [SIGNATURE_HEADER]: signBody(due.secret, due.body) },
      body: due.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.ok ? undefined : `HTTP ${res.status}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
};

/** One pass over the due deliveries; how many were attempted. */
export const deliverDue = async (o: DeliveryWorkerOptions): Promise<number> => {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const now = o.clock();
  const { rows } = await o.pool.query<Due>(CLAIM, [now.toISOString(), timeoutMs * 2, o.batch ?? 20]);
  await Promise.all(
    rows.map(async (due) => {
      const failure = await post(due, timeoutMs);
      const at = o.clock().toISOString();
      if (failure === undefined) {
        await o.pool.query('UPDATE monitor_deliveries SET delivered_at = $2, last_error = NULL WHERE id = $1', [due.id, at]);
        await o.pool.query('UPDATE monitor_webhooks SET failing_since = NULL WHERE id = $1', [due.webhook_id]);
        return;
      }
      const delay = backoffMs(due.attempts, o.baseDelayMs ?? 5_000, o.maxDelayMs ?? 3_600_000);
      await o.pool.query(
        `UPDATE monitor_deliveries SET last_error = $2, next_attempt_at = $3::timestamptz + make_interval(secs => $4::float8 / 1000)
         WHERE id = $1 AND delivered_at IS NULL`,
        [due.id, failure.slice(0, 500), at, delay],
      );
      await o.pool.query(
        `UPDATE monitor_webhooks SET failing_since = coalesce(failing_since, $2::timestamptz),
           disabled_at = CASE WHEN coalesce(failing_since, $2::timestamptz) <= $2::timestamptz - make_interval(secs => $3::float8 / 1000)
             THEN $2::timestamptz END
         WHERE id = $1 AND disabled_at IS NULL`,
        [due.webhook_id, at, o.disableAfterMs ?? 86_400_000],
      );
    }),
  );
  return rows.length;
};

export type DeliveryWorker = Readonly<{ stop: () => Promise<void> }>;

/** Polls the outbox until stopped; a pass that fails (the database away) is retried on the next poll. */
export const startDeliveryWorker = (o: DeliveryWorkerOptions): DeliveryWorker => {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const n = await deliverDue(o).catch((error: unknown) => {
        o.onError?.(error);
        return 0;
      });
      if (n === 0) await new Promise((resolve) => setTimeout(resolve, o.pollMs ?? 1_000));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
};
