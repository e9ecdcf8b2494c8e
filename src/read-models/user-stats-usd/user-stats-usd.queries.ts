import type pg from 'pg';
import type { DecimalString } from '../../domain/money/money.js';

export type FullStats = Readonly<{
  totalWagered: string;
  totalPayouts: string;
  totalDeposits: string;
  totalWithdraws: string;
  ltv: string;
  ggr: string;
  avgBet: string;
  netDeposit: string;
  totalLoss: string;
  totalBets: number;
  rtp: number;
  winRate: number;
}>;

/**
 * One user's admin stats (formulas in docs/back-office.md), computed in SQL numeric; rtp and winRate are sent as
 * numbers (ratios, not money). Undefined when the user does not exist.
 */
export const fullStats = async (pool: pg.Pool, userId: number): Promise<FullStats | undefined> => {
  const { rows } = await pool.query<Record<string, string | number>>(
    `
    WITH s AS (
      SELECT coalesce(st.total_wagered, 0) AS w, coalesce(st.total_payouts, 0) AS p, coalesce(st.total_deposits, 0) AS d,
        coalesce(st.total_withdraws, 0) AS x, coalesce(st.total_bets, 0) AS n
      FROM users u LEFT JOIN user_stats_usd st ON st.user_id = u.id WHERE u.id = $1
    ), b AS (
      SELECT count(*) FILTER (WHERE payout > amount) AS wins, count(*) AS settled FROM bets WHERE user_id = $1 AND status = 'SETTLED'
    )
    SELECT trim_scale(w)::text AS "totalWagered", trim_scale(p)::text AS "totalPayouts", trim_scale(d)::text AS "totalDeposits",
      trim_scale(x)::text AS "totalWithdraws", trim_scale(d - x)::text AS ltv, trim_scale(w - p)::text AS ggr,
      trim_scale(CASE WHEN n > 0 THEN round(w / n, 8) ELSE 0 END)::text AS "avgBet",
      trim_scale(d - x)::text AS "netDeposit", trim_scale(w - p)::text AS "totalLoss", n::int AS "totalBets",
      (CASE WHEN w > 0 THEN round(p / w * 100, 2) ELSE 0 END)::text AS rtp,
      (CASE WHEN settled > 0 THEN round(wins::numeric / settled * 100, 2) ELSE 0 END)::text AS "winRate"
    FROM s, b`,
    [userId],
  );
  const r = rows[0];
  if (!r) return undefined;
  return { ...r, rtp: Number(r.rtp), winRate: Number(r.winRate) } as unknown as FullStats;
};

/** The USD a user has wagered on settled bets, behind the VIP level ('0' before the first). */
export const wageredUsd = async (pool: pg.Pool, userId: number): Promise<DecimalString> => {
  const { rows } = await pool.query<{ wagered: string }>(
    'SELECT trim_scale(total_wagered)::text AS wagered FROM user_stats_usd WHERE user_id = $1',
    [userId],
  );
  return (rows[0]?.wagered ?? '0') as DecimalString;
};
