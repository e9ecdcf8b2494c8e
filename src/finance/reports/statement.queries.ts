import type pg from 'pg';
import { userAccount } from '../../domain/ledger/posting.js';
import type { ReportScope } from './reports.scope.js';
import type { ReportRow, ReportTable } from './report.table.js';

/** [from, to) instants of a scope: a period's bounds, or a range's days from the start of `from` to the end of `to`. */
const bounds = async (db: Pick<pg.Pool, 'query'>, scope: ReportScope): Promise<{ from: string; to: string }> => {
  if (scope.kind === 'period') return { from: scope.start, to: scope.end };
  const { rows } = await db.query<{ f: Date; t: Date }>(
    `SELECT ($1::date::timestamp AT TIME ZONE $3) AS f, (($2::date + 1)::timestamp AT TIME ZONE $3) AS t`,
    [scope.from, scope.to, scope.timeZone],
  );
  return { from: rows[0]!.f.toISOString(), to: rows[0]!.t.toISOString() };
};

/**
 * The opening balance per currency at `from` (business time): the last close ending at or before it, the movements
 * from that close's end to `from`, and those recorded after it whose business time is before its end (late items).
 * Costs the movements since that close, not the player's history.
 */
const OPENING = `
  c AS (
    SELECT period, (report->>'end')::timestamptz AS end_at FROM period_closes
    WHERE (report->>'end')::timestamptz <= $2 ORDER BY period DESC LIMIT 1
  ), o AS (
    SELECT b.currency_id, b.balance AS amount FROM period_balances b JOIN c ON b.period = c.period WHERE b.account = $4
    UNION ALL
    SELECT currency_id, amount FROM transactions
    WHERE user_id = $1 AND effective_at >= coalesce((SELECT end_at FROM c), '-infinity') AND effective_at < $2
    UNION ALL
    SELECT t.currency_id, t.amount FROM c JOIN ledger_late_items l ON l.period > c.period AND l.business_at < c.end_at
    JOIN transactions t ON t.event_id = l.event_id AND t.user_id = $1
  ), opening AS (SELECT currency_id, sum(amount) AS amount FROM o GROUP BY currency_id)`;

/**
 * A player's account statement: per currency, the opening balance, every movement in the range with its business and
 * recording times and the balance after it (in business-time order), and the closing balance.
 */
export const statementReport = async (
  db: Pick<pg.Pool, 'query'>,
  userId: number,
  scope: ReportScope,
): Promise<ReportTable & { from: string; to: string }> => {
  const { from, to } = await bounds(db, scope);
  const { rows } = await db.query<Record<string, string | null>>(
    `WITH ${OPENING}, m AS (
       SELECT id, type, reference_id, currency_id, amount, effective_at, created_at, position_commit, position_prepare
       FROM transactions WHERE user_id = $1 AND effective_at >= $2 AND effective_at < $3
     ), cur AS (SELECT currency_id FROM opening UNION SELECT currency_id FROM m), lines AS (
       SELECT cur.currency_id, 0 AS ord, 'OPENING' AS line, NULL::text AS id, NULL::text AS type, NULL::text AS reference_id,
         $2::timestamptz AS effective_at, NULL::timestamptz AS created_at, NULL::numeric AS amount,
         coalesce(o.amount, 0) AS balance, NULL::numeric AS pc, NULL::numeric AS pp
       FROM cur LEFT JOIN opening o USING (currency_id)
       UNION ALL
       SELECT m.currency_id, 1, 'MOVEMENT', m.id, m.type, m.reference_id, m.effective_at, m.created_at, m.amount,
         coalesce(o.amount, 0) + sum(m.amount) OVER (PARTITION BY m.currency_id
           ORDER BY m.effective_at, m.position_commit, m.position_prepare ROWS UNBOUNDED PRECEDING),
         m.position_commit, m.position_prepare
       FROM m LEFT JOIN opening o USING (currency_id)
       UNION ALL
       SELECT cur.currency_id, 2, 'CLOSING', NULL, NULL, NULL, $3::timestamptz, NULL, NULL,
         coalesce(o.amount, 0) + coalesce((SELECT sum(amount) FROM m WHERE m.currency_id = cur.currency_id), 0), NULL, NULL
       FROM cur LEFT JOIN opening o USING (currency_id)
     )
     SELECT currency_id, line, id, type, reference_id, effective_at, created_at, trim_scale(amount)::text AS amount,
       trim_scale(balance)::text AS balance
     FROM lines ORDER BY currency_id, ord, effective_at, pc, pp`,
    [userId, from, to, userAccount(userId)],
  );
  return {
    from,
    to,
    columns: [
      ...['currencyId', 'line', 'businessAt', 'recordedAt', 'type', 'transactionId', 'reference'].map((name) => ({
        name,
        text: true as const,
      })),
      { name: 'amount' },
      { name: 'balance' },
    ],
    rows: rows.map((r): ReportRow => ({
      currencyId: r.currency_id,
      line: r.line,
      businessAt: iso(r.effective_at),
      recordedAt: iso(r.created_at),
      type: r.type,
      transactionId: r.id,
      reference: r.reference_id,
      amount: r.amount,
      balance: r.balance,
    })),
  };
};

const iso = (v: unknown): string | null => (v instanceof Date ? v.toISOString() : v == null ? null : String(v));
