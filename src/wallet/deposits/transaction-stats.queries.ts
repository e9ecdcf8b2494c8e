import type pg from 'pg';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/page.js';

const SOURCES = { DEPOSIT: 'deposits', WITHDRAW: 'withdrawals' } as const;
const UNITS = { HOURLY: 'hour', DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month' } as const;

export type TransactionStatsFilter = PageRequest &
  Readonly<{ transactionType: keyof typeof SOURCES; dataRange: keyof typeof UNITS; sortOrder: 'asc' | 'desc' }>;

export type TransactionBucket = Readonly<{ period: string; amount: string; count: number }>;

/**
 * GET /user/stats/transactions: COMPLETE deposits (or withdrawals) grouped by the UTC hour, day, ISO week
 * (Monday) or month of their completion; amount = Σ usdAmount, count = their number (docs/back-office.md).
 */
export const statsTransactions = async (pool: pg.Pool, q: TransactionStatsFilter): Promise<Page<TransactionBucket>> => {
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
  return pageOf(
    rows.rows.map((r) => ({ period: r.period.toISOString(), amount: r.amount, count: r.count })),
    count.rows[0]?.total ?? 0,
    q,
  );
};
