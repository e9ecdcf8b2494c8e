import type { Migration } from '../infra/migrate.js';
import { insertRows, walletRecords, type Projection, type Row, type Sql } from './projection.js';

const HANDLES: readonly string[] = ['BetPlaced', 'BetSettled', 'BetRolledBack', 'BetErrored'];

/**
 * Rakeback rates, a fraction of each settled bet's stake in its own currency (0.001 = 0.1 %).
 * Changing them applies to bets settled afterwards only after a rebuild: bump `version` to re-accrue history.
 */
export const RAKEBACK_RATES = { instant: '0.001', daily: '0.0005', weekly: '0.0005', monthly: '0.0005' } as const;

export const rakebackMigration: Migration = {
  id: '0150_rakebacks',
  sql: `
    CREATE TABLE rakebacks (
      user_id bigint NOT NULL,
      currency_id text NOT NULL,
      instant_claimable numeric NOT NULL DEFAULT 0,
      instant_total_claimed numeric NOT NULL DEFAULT 0,
      daily_accumulated numeric NOT NULL DEFAULT 0,
      daily_claimable numeric NOT NULL DEFAULT 0,
      daily_total_claimed numeric NOT NULL DEFAULT 0,
      weekly_accumulated numeric NOT NULL DEFAULT 0,
      weekly_claimable numeric NOT NULL DEFAULT 0,
      weekly_total_claimed numeric NOT NULL DEFAULT 0,
      monthly_accumulated numeric NOT NULL DEFAULT 0,
      monthly_claimable numeric NOT NULL DEFAULT 0,
      monthly_total_claimed numeric NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, currency_id)
    );
    -- Private to the rakeback projection: stakes of open bets (BetSettled does not repeat the stake).
    CREATE TABLE rakeback_pending (
      bet_id text PRIMARY KEY,
      user_id bigint NOT NULL,
      currency_id text NOT NULL,
      amount numeric NOT NULL
    );`,
};

/** Adds each settled stake × rate to the user's pots in the bet's currency, exactly (numeric, no rounding). */
const ACCRUE = `
  WITH s AS (
    SELECT p.user_id, p.currency_id, sum(p.amount) AS stake, max(c.at) AS at
    FROM jsonb_to_recordset($1::jsonb) AS c(bet_id text, at timestamptz) JOIN rakeback_pending p ON p.bet_id = c.bet_id
    GROUP BY p.user_id, p.currency_id
  )
  INSERT INTO rakebacks (user_id, currency_id, instant_claimable, daily_accumulated, weekly_accumulated, monthly_accumulated, updated_at)
  SELECT user_id, currency_id, stake * $2::numeric, stake * $3::numeric, stake * $4::numeric, stake * $5::numeric, at FROM s
  ON CONFLICT (user_id, currency_id) DO UPDATE SET
    instant_claimable = rakebacks.instant_claimable + EXCLUDED.instant_claimable,
    daily_accumulated = rakebacks.daily_accumulated + EXCLUDED.daily_accumulated,
    weekly_accumulated = rakebacks.weekly_accumulated + EXCLUDED.weekly_accumulated,
    monthly_accumulated = rakebacks.monthly_accumulated + EXCLUDED.monthly_accumulated,
    updated_at = GREATEST(rakebacks.updated_at, EXCLUDED.updated_at)`;

/**
 * Rakeback per user and currency (spec "Rakeback record"): a bet's stake accrues when it SETTLES (rolled
 * back and errored bets never accrue), instant into instantClaimable, the periodic rates into the daily,
 * weekly and monthly *Accumulated pots. Moving Accumulated into Claimable at a period's end, and claims,
 * belong to the rakeback-claim feature; until then those columns stay 0.
 */
export const rakebackProjection: Projection = {
  name: 'rakeback',
  version: 1,
  handles: HANDLES,
  tables: ['rakebacks', 'rakeback_pending'],
  project(events) {
    const pending: Row[] = [];
    const settled: Row[] = [];
    const closed: string[] = [];
    for (const { userId, event } of walletRecords(events, HANDLES)) {
      switch (event.type) {
        case 'BetPlaced':
          pending.push({ bet_id: event.data.betId, user_id: userId, currency_id: event.data.currencyId, amount: event.data.amount });
          break;
        case 'BetSettled':
          settled.push({ bet_id: event.data.betId, at: event.data.at });
          closed.push(event.data.betId);
          break;
        case 'BetRolledBack':
        case 'BetErrored':
          closed.push(event.data.betId);
          break;
      }
    }
    // Placements first, so that a bet placed and settled in one batch finds its stake.
    const statements: Sql[] = [...insertRows('rakeback_pending', pending)];
    const { instant, daily, weekly, monthly } = RAKEBACK_RATES;
    if (settled.length > 0) statements.push({ text: ACCRUE, values: [JSON.stringify(settled), instant, daily, weekly, monthly] });
    if (closed.length > 0) statements.push({ text: 'DELETE FROM rakeback_pending WHERE bet_id = ANY($1::text[])', values: [closed] });
    return statements;
  },
};
