import { walletStreamUserId } from '../domain/wallet/wallet.events.js';
import type { Projection, Row, Sql } from '../projections/projection.js';

const HANDLES: readonly string[] = ['BetSettled', 'WithdrawalRequested', 'AmlFlagRaised'];

const amlUserId = (streamId: string): number | undefined => {
  const m = /^aml-(\d+)$/.exec(streamId);
  return m ? Number(m[1]) : undefined;
};

/**
 * Each fact matched against every enabled monitor of its type created before it: an alert per (monitor, subject), none
 * for a subject that has one (a replayed fact), and in the same statement an outbox row per live webhook of the type.
 */
const FIRE = `
WITH f AS (
  SELECT * FROM json_to_recordset($1::json) AS f(type text, subject text, user_id bigint, amount_usd numeric, event_id uuid,
    at timestamptz)
), a AS (
  INSERT INTO monitor_alerts (monitor_id, monitor_type, subject, user_id, amount_usd, event_id, raised_at)
  SELECT m.id, m.type, f.subject, f.user_id, f.amount_usd, f.event_id, f.at
  FROM f JOIN monitors m ON m.type = f.type AND m.enabled AND m.created_at <= f.at
    AND (m.threshold_usd IS NULL OR f.amount_usd > m.threshold_usd)
  ORDER BY f.at, m.id
  ON CONFLICT (monitor_id, subject, event_id) DO NOTHING
  RETURNING *
)
INSERT INTO monitor_deliveries (id, alert_id, webhook_id, body, next_attempt_at)
SELECT 'alert-' || a.id || '-webhook-' || w.id, a.id, w.id,
  json_build_object('deliveryId', 'alert-' || a.id || '-webhook-' || w.id, 'alertId', a.id::text, 'monitorId', a.monitor_id::text,
    'type', a.monitor_type, 'subject', a.subject, 'userId', a.user_id, 'amountUsd', trim_scale(a.amount_usd)::text,
    'raisedAt', a.raised_at)::text,
  a.raised_at
FROM a JOIN monitor_webhooks w ON w.monitor_type = a.monitor_type AND w.disabled_at IS NULL`;

const factOf = (type: string, streamId: string, data: Readonly<Record<string, unknown>>): Row | undefined => {
  switch (type) {
    case 'BetSettled':
      return {
        type: 'bet-win-over',
        subject: `bet:${String(data.betId)}`,
        user_id: walletStreamUserId(streamId),
        amount_usd: data.usdPayout,
      };
    case 'WithdrawalRequested':
      return {
        type: 'withdrawal-over',
        subject: `withdrawal:${String(data.withdrawalId)}`,
        user_id: walletStreamUserId(streamId),
        amount_usd: data.usdAmount,
      };
    case 'AmlFlagRaised':
      return { type: 'aml-flag', subject: `aml-flag:${String(data.flagId)}`, user_id: amlUserId(streamId), amount_usd: data.linkedUsd };
  }
  return undefined;
};

/** Monitors (docs/compliance.md): its alerts are kept through a rebuild, so a replay never fires a fact twice. */
export const monitorsProjection: Projection = {
  name: 'monitors',
  version: 1,
  handles: HANDLES,
  tables: [],
  project(events) {
    const facts: Row[] = [];
    for (const e of events) {
      if (!HANDLES.includes(e.type)) continue;
      const fact = factOf(e.type, e.streamId, e.data);
      if (fact?.user_id === undefined) continue;
      facts.push({ ...fact, event_id: e.id, at: e.data.at ?? e.createdAt.toISOString() });
    }
    const out: Sql[] = facts.length === 0 ? [] : [{ text: FIRE, values: [JSON.stringify(facts)] }];
    const losses = events
      .filter((e) => e.type === 'BetSettled' && walletStreamUserId(e.streamId) !== undefined)
      .map((e) => ({
        user_id: walletStreamUserId(e.streamId),
        stake_usd: e.data.usdAmount,
        payout_usd: e.data.usdPayout,
        event_id: e.id,
        at: e.data.at ?? e.createdAt.toISOString(),
      }));
    if (losses.length > 0) out.push({ text: 'SELECT monitor_net_loss_step($1::json)', values: [JSON.stringify(losses)] });
    return out;
  },
};
