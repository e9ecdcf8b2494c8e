import type { Projection } from '../../projections/projection.js';
import { overRows, settledBets } from '../batch-rows.js';

const HANDLES: readonly string[] = ['BetSettled'];

/** Fractions of a settled bet's stake (0.001 = 0.1 %); a change reaches bets settled before it only by a rebuild (bump `version`). */
export const RAKEBACK_RATES = { instant: '0.001', daily: '0.0005', weekly: '0.0005', monthly: '0.0005' } as const;

const ACCRUE = `
  WITH s AS (
    SELECT c.user_id, c.currency_id, sum(c.amount) AS stake, max(c.at) AS at
    FROM json_to_recordset($1::json) AS c(user_id bigint, currency_id text, amount numeric, at timestamptz)
    GROUP BY c.user_id, c.currency_id
  )
  INSERT INTO rakebacks (user_id, currency_id, instant_claimable, daily_accumulated, weekly_accumulated, monthly_accumulated, updated_at)
  SELECT user_id, currency_id, stake * $2::numeric, stake * $3::numeric, stake * $4::numeric, stake * $5::numeric, at FROM s
  ON CONFLICT (user_id, currency_id) DO UPDATE SET
    instant_claimable = rakebacks.instant_claimable + EXCLUDED.instant_claimable,
    daily_accumulated = rakebacks.daily_accumulated + EXCLUDED.daily_accumulated,
    weekly_accumulated = rakebacks.weekly_accumulated + EXCLUDED.weekly_accumulated,
    monthly_accumulated = rakebacks.monthly_accumulated + EXCLUDED.monthly_accumulated,
    updated_at = GREATEST(rakebacks.updated_at, EXCLUDED.updated_at)`;

/** Rakeback per user and currency: a settled bet's stake accrues into instantClaimable and the daily, weekly, monthly pots. */
export const rakebackProjection: Projection = {
  name: 'rakeback',
  version: 1,
  handles: HANDLES,
  tables: ['rakebacks'],
  project(events) {
    const settled = settledBets(events, (userId, bet) => ({
      user_id: userId,
      currency_id: bet.currencyId,
      amount: bet.amount,
      at: bet.at,
    }));
    const { instant, daily, weekly, monthly } = RAKEBACK_RATES;
    return overRows(ACCRUE, settled, instant, daily, weekly, monthly);
  },
};
