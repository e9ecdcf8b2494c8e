import type pg from 'pg';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/page.js';

const SOURCES = { DEPOSIT: 'deposits', WITHDRAW: 'withdrawals' } as const;
const UNITS = { HOURLY: 'hour', DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month' } as const;

export type TransactionStatsFilter = PageRequest &
  Readonly<{
    transactionType: keyof typeof SOURCES;
    dataRange: keyof typeof UNITS;
    sortOrder: 'asc' | 'desc';
    /** Both or neither: every period from the one holding `from` to the last one starting before `to`. */
    from?: string | undefined;
    to?: string | undefined;
  }>;

export type TransactionBucket = Readonly<{ period: string; amount: string; count: number }>;

/** A range asks for at most this many periods (a month counted as 31 days): its series is built whole. */
export const STATS_RANGE_MAX_PERIODS = 1000;
export const STATS_UNIT_MS = { HOURLY: 3_600_000, DAILY: 86_400_000, WEEKLY: 7 * 86_400_000, MONTHLY: 31 * 86_400_000 } as const;

const bucketsOf = (rows: { period: Date; amount: string; count: number }[]): TransactionBucket[] =>
  rows.map((r) => ({ period: r.period.toISOString(), amount: r.amount, count: r.count }));

/**
 * With `from` and `to`: every period of the range, the empty ones as amount 0 and count 0, so a chart of the range has no
 * gaps; `total` is the number of periods. Each period is whole (its completions before `from` or after `to` count too).
 */
const statsInRange = async (pool: pg.Pool, q: TransactionStatsFilter, from: string, to: string): Promise<Page<TransactionBucket>> => {
  const table = SOURCES[q.transactionType];
  const dir = q.sortOrder === 'asc' ? 'ASC' : 'DESC';
  const periods = `SELECT p FROM generate_series(date_trunc($1, $2::timestamptz AT TIME ZONE 'UTC'),
      ($3::timestamptz AT TIME ZONE 'UTC') - interval '1 microsecond', ('1 ' || $1)::interval) p`;
  const [rows, count] = await Promise.all([
    pool.query<{ period: Date; amount: string; count: number }>(
      `WITH periods AS (${periods}),
       sums AS (
         SELECT date_trunc($1, completed_at AT TIME ZONE 'UTC') AS p, sum(usd_amount) AS amount, count(*)::int AS count
         FROM ${table}
         WHERE status = 'COMPLETE' AND completed_at IS NOT NULL
           AND completed_at >= (SELECT min(p) FROM periods) AT TIME ZONE 'UTC'
           AND completed_at < ((SELECT max(p) FROM periods) + ('1 ' || $1)::interval) AT TIME ZONE 'UTC'
         GROUP BY 1
       )
       SELECT periods.p AT TIME ZONE 'UTC' AS period, trim_scale(coalesce(sums.amount, 0))::text AS amount,
         coalesce(sums.count, 0) AS count
       FROM periods LEFT JOIN sums USING (p)
       ORDER BY coalesce(sums.amount, 0) ${dir}, periods.p ${dir} LIMIT $4 OFFSET $5`,
      [UNITS[q.dataRange], from, to, q.take, offsetOf(q)],
    ),
    pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM (${periods}) periods`, [UNITS[q.dataRange], from, to]),
  ]);
  return pageOf(bucketsOf(rows.rows), count.rows[0]?.total ?? 0, q);
};

/**
 * GET /user/stats/transactions: COMPLETE deposits (or withdrawals) grouped by the UTC hour, day, ISO week
 * (Monday) or month of their completion; amount = Σ usdAmount, count = their number (docs/back-office.md).
 */
export const statsTransactions = async (pool: pg.Pool, q: TransactionStatsFilter): Promise<Page<TransactionBucket>> => {
  if (q.from !== undefined && q.to !== undefined) return statsInRange(pool, q, q.from, q.to);
  const table = SOURCES[q.transactionType];
  const bucket = `date_trunc($1, completed_at AT TIME ZONE 'UTC')`;
  const dir = q.sortOrder === 'asc' ? 'ASC' : 'DESC';
  const [rows, count] = await Promise.all([
    pool.query<{ period: Date; amount: string; count: number }>(
      `SELECT ${bucket} AT TIME ZONE 'UTC' AS period, trim_scale(sum(usd_amount))::text AS amount, count(*)::int AS count
       FROM ${table} WHERE status = 'COMPLETE' AND completed_at IS NOT NULL
       GROUP BY 1 ORDER BY sum(usd_amount) ${dir}, 1 ${dir} LIMIT $2 OFFSET $3`,
      [UNITS[q.dataRange], q.take, offsetOf(q)],
    ),
    pool.query<{ total: number }>(
      `SELECT count(DISTINCT ${bucket})::int AS total FROM ${table} WHERE status = 'COMPLETE' AND completed_at IS NOT NULL`,
      [UNITS[q.dataRange]],
    ),
  ]);
  return pageOf(bucketsOf(rows.rows), count.rows[0]?.total ?? 0, q);
};
