import type { Migration } from '../../infra/migrate.js';

/** Rakeback pots per user and currency. */
export const rakebackMigrations: readonly Migration[] = [
  {
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
    );`,
  },
];
