import { businessTimeOf, hasMovement, isWalletEventType, walletStreamUserId, type WalletEvent } from '../domain/wallet/wallet.events.js';
import { formatPosition, type RecordedEvent } from '../infra/event-store/event-store.port.js';
import { MOVEMENT_EVENT_TYPES, type Projection, type Sql } from '../projections/projection.js';
import { PERIODS_STREAM, type PeriodClosed } from './periods.events.js';

/** The booking rule, in one statement per run of wallet events between two closes (see docs/ledger.md, Periods). */
const BOOK_MOVEMENTS = `
WITH m AS (
  SELECT * FROM json_to_recordset($1::json) AS m(account text, currency_id text, kind text, amount numeric,
    business_at timestamptz, event_id uuid, stream_id text, revision bigint, recorded_at timestamptz)
), c AS (
  SELECT time_zone, unit FROM ledger_calendar WHERE id = 1
), b AS (
  SELECT m.*, ledger_period_of(m.business_at, c.time_zone, c.unit) AS business_period,
    (m.business_at AT TIME ZONE c.time_zone)::date AS day, (SELECT last_closed FROM ledger_period_state WHERE id = 1) AS last_closed
  FROM m CROSS JOIN c
), booked AS (
  SELECT b.*, CASE WHEN b.business_period <= b.last_closed THEN ledger_next_period(b.last_closed) ELSE b.business_period END AS period
  FROM b
), late AS (
  INSERT INTO ledger_late_items (event_id, period, business_period, stream_id, revision, type, business_at, recorded_at)
  SELECT DISTINCT ON (event_id) event_id, period, business_period, stream_id, revision, kind, business_at, recorded_at
  FROM booked WHERE period <> business_period ORDER BY event_id
  ON CONFLICT DO NOTHING
)
INSERT INTO ledger_movements_daily AS t (period, day, account, currency_id, kind, amount, entries)
SELECT period, day, account, currency_id, kind, sum(amount), count(*) FROM booked GROUP BY period, day, account, currency_id, kind
ON CONFLICT (period, day, account, currency_id, kind)
DO UPDATE SET amount = t.amount + excluded.amount, entries = t.entries + excluded.entries`;

/** The closing balances: the previous close's plus this period's movements, for every account that has either. */
const CLOSE_BALANCES = `
INSERT INTO period_balances (period, account, currency_id, balance)
SELECT $1, account, currency_id, trim_scale(sum(amount)) FROM (
  SELECT account, currency_id, balance AS amount FROM period_balances
  WHERE period = (SELECT last_closed FROM ledger_period_state WHERE id = 1)
  UNION ALL
  SELECT account, currency_id, amount FROM ledger_movements_daily WHERE period = $1
) x GROUP BY account, currency_id
ON CONFLICT DO NOTHING`;

/** The closing report, from the closing balances, the open bets and the period's movements (amounts as exact text). */
const CLOSE_REPORT = `
INSERT INTO period_closes (period, position, report)
SELECT $1, $2, jsonb_build_object(
  'period', $1::text,
  'previous', (SELECT last_closed FROM ledger_period_state WHERE id = 1),
  'timeZone', $3::text, 'unit', $4::text, 'start', $5::text, 'end', $6::text,
  'position', $2::text, 'closedAt', $7::text, 'closedBy', $8::bigint,
  'accounts', (SELECT count(*) FROM period_balances WHERE period = $1),
  'trialBalance', (SELECT coalesce(jsonb_agg(jsonb_build_object('currencyId', currency_id, 'total', trim_scale(total)::text)
      ORDER BY currency_id), '[]'::jsonb)
    FROM (SELECT currency_id, sum(balance) AS total FROM period_balances WHERE period = $1 GROUP BY currency_id) t),
  'liability', (SELECT coalesce(jsonb_agg(jsonb_build_object('currencyId', cur,
        'playerBalances', trim_scale(players)::text, 'withdrawalsHeld', trim_scale(held)::text,
        'openBetStakes', trim_scale(stakes)::text, 'total', trim_scale(players + held + stakes)::text) ORDER BY cur), '[]'::jsonb)
    FROM (
      SELECT cur, sum(players) AS players, sum(held) AS held, sum(stakes) AS stakes FROM (
        SELECT currency_id AS cur, CASE WHEN account LIKE 'user:%' THEN balance ELSE 0 END AS players,
          CASE WHEN account = 'house:withdrawals-held' THEN balance ELSE 0 END AS held, 0 AS stakes
        FROM period_balances WHERE period = $1
        UNION ALL
        SELECT currency_id, 0, 0, amount FROM ledger_open_bets
      ) parts GROUP BY cur
    ) l),
  'movements', (SELECT coalesce(jsonb_agg(jsonb_build_object('kind', kind, 'currencyId', currency_id,
      'players', trim_scale(players)::text, 'house', trim_scale(house)::text, 'legs', legs) ORDER BY kind, currency_id), '[]'::jsonb)
    FROM (SELECT kind, currency_id, coalesce(sum(amount) FILTER (WHERE account LIKE 'user:%'), 0) AS players,
            coalesce(sum(amount) FILTER (WHERE account NOT LIKE 'user:%'), 0) AS house, sum(entries) AS legs
          FROM ledger_movements_daily WHERE period = $1 GROUP BY kind, currency_id) mv),
  'lateItems', (SELECT coalesce(jsonb_agg(jsonb_build_object('eventId', event_id, 'type', type, 'streamId', stream_id,
      'revision', revision, 'businessPeriod', business_period, 'businessAt', business_at, 'recordedAt', recorded_at)
      ORDER BY recorded_at, event_id), '[]'::jsonb)
    FROM ledger_late_items WHERE period = $1)
)
ON CONFLICT DO NOTHING`;

const ADVANCE = `INSERT INTO ledger_period_state (id, last_closed, closed_position) VALUES (1, $1, $2)
ON CONFLICT (id) DO UPDATE SET last_closed = excluded.last_closed, closed_position = excluded.closed_position`;

type Leg = Readonly<{
  account: string;
  currency_id: string;
  kind: string;
  amount: string;
  business_at: string;
  event_id: string;
  stream_id: string;
  revision: string;
  recorded_at: string;
}>;

const OPEN_BET_END = new Set(['BetSettled', 'BetRolledBack', 'BetErrored']);

/**
 * Periods: every posting leg booked by period and business day, the open bets, and at each PeriodClosed the closing
 * balances and report, computed in the same transaction as the events before it and no other. Written once: a rebuild
 * replays the movements but leaves what a close wrote.
 */
export const periodsProjection: Projection = {
  name: 'periods',
  version: 1,
  handles: [...MOVEMENT_EVENT_TYPES, 'PeriodClosed'],
  tables: ['ledger_movements_daily', 'ledger_open_bets', 'ledger_late_items', 'ledger_period_state'],
  project(events) {
    const out: Sql[] = [];
    let legs: Leg[] = [];
    const opened: { bet_id: string; user_id: number; currency_id: string; amount: string }[] = [];
    const ended: string[] = [];
    const flush = (): void => {
      if (legs.length > 0) out.push({ text: BOOK_MOVEMENTS, values: [JSON.stringify(legs)] });
      if (opened.length > 0)
        out.push({
          text: `INSERT INTO ledger_open_bets SELECT * FROM json_populate_recordset(NULL::ledger_open_bets, $1::json)
            ON CONFLICT DO NOTHING`,
          values: [JSON.stringify(opened.splice(0))],
        });
      if (ended.length > 0) out.push({ text: 'DELETE FROM ledger_open_bets WHERE bet_id = ANY($1::text[])', values: [ended.splice(0)] });
      legs = [];
    };
    for (const e of events) {
      if (e.streamId === PERIODS_STREAM && e.type === 'PeriodClosed') {
        flush();
        out.push(...closeStatements(e));
        continue;
      }
      const userId = walletStreamUserId(e.streamId);
      if (userId === undefined || !isWalletEventType(e.type)) continue;
      const event = { type: e.type, data: e.data } as WalletEvent;
      if (event.type === 'BetPlaced') {
        opened.push({ bet_id: event.data.betId, user_id: userId, currency_id: event.data.currencyId, amount: event.data.amount });
      } else if (OPEN_BET_END.has(event.type)) {
        const betId = (event.data as { betId: string }).betId;
        const i = opened.findIndex((o) => o.bet_id === betId);
        if (i >= 0) opened.splice(i, 1);
        else ended.push(betId);
      }
      if (!hasMovement(event)) continue;
      for (const p of event.data.postings) {
        legs.push({
          account: p.account,
          currency_id: p.currencyId,
          kind: event.type,
          amount: p.amount,
          business_at: businessTimeOf(event.data),
          event_id: e.id,
          stream_id: e.streamId,
          revision: e.revision.toString(),
          recorded_at: event.data.at,
        });
      }
    }
    flush();
    return out;
  },
};

const closeStatements = (e: RecordedEvent): Sql[] => {
  const d = (e as unknown as PeriodClosed).data;
  const position = formatPosition(e.position);
  return [
    { text: CLOSE_BALANCES, values: [d.periodId] },
    { text: CLOSE_REPORT, values: [d.periodId, position, d.timeZone, d.unit, d.start, d.end, d.at, d.adminUserId] },
    { text: ADVANCE, values: [d.periodId, position] },
  ];
};
