import type { Migration } from '../infra/migrate.js';

/**
 * Periods: the calendar they are cut by (fixed once a period is closed), the periods read model kept per booking
 * period and business day as events arrive, and what a close writes once: the closing balances and the report.
 */
export const periodsMigrations: Migration[] = [
  {
    id: '0490_ledger_periods',
    sql: `
      CREATE TABLE ledger_calendar (
        id int PRIMARY KEY CHECK (id = 1),
        time_zone text NOT NULL,
        unit text NOT NULL CHECK (unit IN ('month', 'day'))
      );
      INSERT INTO ledger_calendar (id, time_zone, unit) VALUES (1, 'UTC', 'month');

      -- The period after p (a month 'YYYY-MM' or a day 'YYYY-MM-DD').
      CREATE FUNCTION ledger_next_period(p text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
        SELECT CASE WHEN length(p) = 7 THEN to_char(to_date(p || '-01', 'YYYY-MM-DD') + interval '1 month', 'YYYY-MM')
                    ELSE to_char(to_date(p, 'YYYY-MM-DD') + 1, 'YYYY-MM-DD') END
      $$;
      -- The period of an instant in the calendar's zone.
      CREATE FUNCTION ledger_period_of(t timestamptz, zone text, unit text) RETURNS text LANGUAGE sql STABLE STRICT AS $$
        SELECT to_char(t AT TIME ZONE zone, CASE unit WHEN 'month' THEN 'YYYY-MM' ELSE 'YYYY-MM-DD' END)
      $$;

      -- Where the projection stands: the last period closed before the events it has applied.
      CREATE TABLE ledger_period_state (
        id int PRIMARY KEY CHECK (id = 1),
        last_closed text,
        closed_position text
      );
      -- Every posting leg summed per booking period, business day (in the calendar's zone), account, currency and kind.
      CREATE TABLE ledger_movements_daily (
        period text NOT NULL,
        day date NOT NULL,
        account text NOT NULL,
        currency_id text NOT NULL,
        kind text NOT NULL,
        amount numeric NOT NULL,
        entries bigint NOT NULL,
        PRIMARY KEY (period, day, account, currency_id, kind)
      );
      -- Stakes of the bets not yet settled, rolled back or errored: part of what the casino owes its players.
      CREATE TABLE ledger_open_bets (
        bet_id text PRIMARY KEY,
        user_id bigint NOT NULL,
        currency_id text NOT NULL,
        amount numeric NOT NULL
      );
      -- Money events recorded after the period of their business time was closed: booked in the first open period.
      CREATE TABLE ledger_late_items (
        event_id uuid PRIMARY KEY,
        period text NOT NULL,
        business_period text NOT NULL,
        stream_id text NOT NULL,
        revision bigint NOT NULL,
        type text NOT NULL,
        business_at timestamptz NOT NULL,
        recorded_at timestamptz NOT NULL
      );
      CREATE INDEX ledger_late_items_period_idx ON ledger_late_items (period);

      -- Written once by the close (never truncated by a rebuild): the closing balance of every account, and the report.
      CREATE TABLE period_balances (
        period text NOT NULL,
        account text NOT NULL,
        currency_id text NOT NULL,
        balance numeric NOT NULL,
        PRIMARY KEY (period, account, currency_id)
      );
      CREATE TABLE period_closes (
        period text PRIMARY KEY,
        position text NOT NULL,
        report jsonb NOT NULL,
        sha256 text,
        mac bytea,
        written_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
];
