import type { Migration } from '../infra/migrate.js';

/** Leaderboard tables. */
/** The seeded schedules' prize tables (JSON), kept out of the SQL only for line length: the SQL text is unchanged. */
const WEEKLY_PRIZES =
  '[{"position":1,"usdPrize":1000},{"position":2,"usdPrize":500},{"position":3,"usdPrize":250},' +
  '{"position":4,"usdPrize":100},{"position":5,"usdPrize":50}]';
const MONTHLY_PRIZES =
  '[{"position":1,"usdPrize":5000},{"position":2,"usdPrize":2500},{"position":3,"usdPrize":1000},' +
  '{"position":4,"usdPrize":500},{"position":5,"usdPrize":250}]';

export const leaderboardMigrations: readonly Migration[] = [
  {
    id: '0140_leaderboards',
    sql: `
      CREATE TABLE leaderboard_schedules (
        id text PRIMARY KEY,
        type text NOT NULL UNIQUE CHECK (type IN ('DAILY', 'WEEKLY', 'MONTHLY')),
        enabled boolean NOT NULL,
        name text NOT NULL,
        description text NOT NULL,
        prizes jsonb NOT NULL, -- [{position, usdPrize}] with usdPrize a JSON number (spec, Prize entry)
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      INSERT INTO leaderboard_schedules (id, type, enabled, name, description, prizes) VALUES
        (gen_random_uuid()::text, 'DAILY', false, 'Daily race', 'Wager the most in a UTC day',
          '[{"position":1,"usdPrize":100},{"position":2,"usdPrize":50},{"position":3,"usdPrize":25}]'),
        (gen_random_uuid()::text, 'WEEKLY', false, 'Weekly race', 'Wager the most from Monday to Sunday (UTC)',
          '${WEEKLY_PRIZES}'),
        (gen_random_uuid()::text, 'MONTHLY', false, 'Monthly race', 'Wager the most in a calendar month (UTC)',
          '${MONTHLY_PRIZES}');

      CREATE TABLE leaderboards (
        id text PRIMARY KEY,
        schedule_id text REFERENCES leaderboard_schedules (id),
        type text NOT NULL CHECK (type IN ('DAILY', 'WEEKLY', 'MONTHLY')),
        status text NOT NULL CHECK (status IN ('NOT_STARTED', 'ACTIVE', 'ENDED', 'SETTLEMENT', 'FINISHED')),
        name text NOT NULL,
        description text,
        config jsonb NOT NULL, -- the schedule's config when the leaderboard was created; prizes come from here
        start_date timestamptz NOT NULL,
        end_date timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (schedule_id, start_date)
      );
      CREATE INDEX leaderboards_created ON leaderboards (created_at DESC, id);
      CREATE INDEX leaderboards_open ON leaderboards (status) WHERE status <> 'FINISHED';

      CREATE TABLE leaderboard_users (
        id text PRIMARY KEY,
        leaderboard_id text NOT NULL REFERENCES leaderboards (id),
        user_id bigint NOT NULL,
        position integer NOT NULL,
        usd_amount numeric NOT NULL,           -- wagered USD of bets SETTLED inside [start_date, end_date)
        usd_prize numeric NOT NULL DEFAULT 0,  -- assigned at settlement
        remaining_usd_prize numeric NOT NULL DEFAULT 0 CHECK (remaining_usd_prize >= 0),
        is_winner boolean NOT NULL DEFAULT false,
        is_prize_received boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (leaderboard_id, user_id)
      );
      CREATE INDEX leaderboard_users_position ON leaderboard_users (leaderboard_id, position);

      CREATE TABLE leaderboard_prize_payments (
        operation_key text PRIMARY KEY,        -- the ledger's operation key: a re-drive cannot pay twice
        leaderboard_user_id text NOT NULL REFERENCES leaderboard_users (id),
        admin_user_id bigint NOT NULL,
        currency_id text NOT NULL,
        amount numeric NOT NULL,
        usd_amount numeric NOT NULL,
        status text NOT NULL CHECK (status IN ('RESERVED', 'PAID')),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX leaderboard_prize_payments_reserved ON leaderboard_prize_payments (created_at) WHERE status = 'RESERVED';`,
  },
];
