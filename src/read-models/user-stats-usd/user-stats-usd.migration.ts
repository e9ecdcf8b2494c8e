import type { Migration } from '../../infra/migrate.js';

/** Lifetime USD figures per user. */
export const userStatsUsdMigrations: readonly Migration[] = [
  {
    id: '0105_user_stats_usd',
    sql: `
      CREATE TABLE user_stats_usd (
        user_id bigint PRIMARY KEY,
        total_wagered numeric NOT NULL DEFAULT 0,  -- sum of usdAmount of SETTLED bets
        total_payouts numeric NOT NULL DEFAULT 0,  -- sum of usdPayout of SETTLED bets
        total_deposits numeric NOT NULL DEFAULT 0, -- sum of usdAmount of COMPLETE deposits
        total_withdraws numeric NOT NULL DEFAULT 0, -- sum of usdAmount of COMPLETE withdrawals
        ggr numeric GENERATED ALWAYS AS (trim_scale(total_wagered - total_payouts)) STORED,
        ltv numeric GENERATED ALWAYS AS (trim_scale(total_deposits - total_withdraws)) STORED,
        total_bets integer NOT NULL DEFAULT 0,      -- number of SETTLED bets
        first_deposit_at timestamptz,
        last_deposit_at timestamptz,
        last_wagered_at timestamptz,               -- latest placement time of a SETTLED bet
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX user_stats_usd_wagered ON user_stats_usd (total_wagered);
      CREATE INDEX user_stats_usd_ltv ON user_stats_usd (ltv);`,
  },
  {
    // No query could use them: the users list sorts and filters on coalesce(s.total_wagered, 0) and coalesce(s.ltv, 0) over a
    // LEFT JOIN, and every other read is by user. Every settled bet paid for both, and they kept each update from being HOT.
    id: '0471_user_stats_usd_unused_indexes',
    sql: `DROP INDEX IF EXISTS user_stats_usd_wagered, user_stats_usd_ltv;`,
  },
];
