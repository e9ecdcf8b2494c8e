import type pg from 'pg';
import { dec, iso, type AnyRow } from '../list-page.js';

const POTS = [
  'instant_claimable',
  'instant_total_claimed',
  ...['daily', 'weekly', 'monthly'].flatMap((p) => [`${p}_claimable`, `${p}_total_claimed`, `${p}_accumulated`]),
];

/** POST /rakeback/find-many: a user's rakeback pots, one record per currency (or the one asked for). */
export const rakebackRecords = async (pool: pg.Pool, userId: number, currencyId: string | undefined) => {
  const { rows } = await pool.query<AnyRow>(
    `SELECT user_id, currency_id, updated_at, ${POTS.map((c) => `${dec(c)} AS ${c}`).join(', ')} FROM rakebacks
       WHERE user_id = $1 AND ($2::text IS NULL OR currency_id = $2) ORDER BY currency_id`,
    [userId, currencyId ?? null],
  );
  return rows.map((r) => ({
    userId: Number(r.user_id),
    currencyId: r.currency_id,
    updatedAt: iso(r.updated_at),
    instantClaimable: r.instant_claimable,
    instantTotalClaimed: r.instant_total_claimed,
    dailyClaimable: r.daily_claimable,
    dailyTotalClaimed: r.daily_total_claimed,
    dailyAccumulated: r.daily_accumulated,
    weeklyClaimable: r.weekly_claimable,
    weeklyTotalClaimed: r.weekly_total_claimed,
    weeklyAccumulated: r.weekly_accumulated,
    monthlyClaimable: r.monthly_claimable,
    monthlyTotalClaimed: r.monthly_total_claimed,
    monthlyAccumulated: r.monthly_accumulated,
  }));
};
