import type { Migration } from '../../infra/migrate.js';

/**
 * The finance reports' read model: flows summed per booking period and business day (in the ledger calendar's zone) as
 * events arrive, so a report reads one row per day and key, never the bets behind them. Rebuilt with the calendar.
 */
export const financeReportsMigrations: readonly Migration[] = [
  {
    id: '0500_finance_reports',
    sql: `
      -- The last period this read model has seen closed: events after it with an earlier business period are booked late.
      CREATE TABLE finance_period_state (
        id int PRIMARY KEY CHECK (id = 1),
        last_closed text
      );
      -- Open bets' game and stake, to attribute their payout or refund to the game; deleted when the bet ends.
      CREATE TABLE finance_open_bets (
        bet_id text PRIMARY KEY,
        game_id integer NOT NULL,
        game_name text NOT NULL,
        provider text NOT NULL,
        usd_amount numeric NOT NULL
      );
      -- Gaming per booking period, business day, game and currency: bets placed, stakes, payouts, stakes refunded.
      CREATE TABLE finance_gaming_daily (
        period text NOT NULL,
        day date NOT NULL,
        game_id integer NOT NULL,
        currency_id text NOT NULL,
        game_name text NOT NULL,
        provider text NOT NULL,
        bets bigint NOT NULL,
        stakes numeric NOT NULL,
        payouts numeric NOT NULL,
        refunds numeric NOT NULL,
        usd_stakes numeric NOT NULL,
        usd_payouts numeric NOT NULL,
        usd_refunds numeric NOT NULL,
        PRIMARY KEY (period, day, game_id, currency_id)
      );
      CREATE INDEX finance_gaming_daily_day ON finance_gaming_daily (day);
      -- Deposits and withdrawals not yet final: their provider, network and amounts for their later steps.
      CREATE TABLE finance_open_payments (
        id text PRIMARY KEY,
        provider text NOT NULL,
        network text NOT NULL,
        currency_id text NOT NULL,
        amount numeric NOT NULL,
        usd_amount numeric NOT NULL
      );
      -- Payment steps per booking period, business day, direction, provider, network, currency and state reached.
      CREATE TABLE finance_payments_daily (
        period text NOT NULL,
        day date NOT NULL,
        direction text NOT NULL CHECK (direction IN ('DEPOSIT', 'WITHDRAWAL')),
        provider text NOT NULL,
        network text NOT NULL,
        currency_id text NOT NULL,
        state text NOT NULL,
        count bigint NOT NULL,
        amount numeric NOT NULL,
        usd_amount numeric NOT NULL,
        PRIMARY KEY (period, day, direction, provider, network, currency_id, state)
      );
      CREATE INDEX finance_payments_daily_day ON finance_payments_daily (day);
      -- Admin adjustments and promotional credits per booking period, business day, kind, tag, admin and currency.
      CREATE TABLE finance_adjustments_daily (
        period text NOT NULL,
        day date NOT NULL,
        kind text NOT NULL,
        tag text NOT NULL, -- '' when none
        admin_user_id bigint NOT NULL, -- 0 when no admin acted (affiliate claims)
        currency_id text NOT NULL,
        count bigint NOT NULL,
        amount numeric NOT NULL, -- signed, from the players' point of view
        usd_amount numeric NOT NULL,
        PRIMARY KEY (period, day, kind, tag, admin_user_id, currency_id)
      );
      CREATE INDEX finance_adjustments_daily_day ON finance_adjustments_daily (day);
      -- The last USD value stated for each currency on each business day: balances are valued at a period's last rate.
      CREATE TABLE finance_rates_daily (
        currency_id text NOT NULL,
        day date NOT NULL,
        business_at timestamptz NOT NULL,
        amount numeric NOT NULL CHECK (amount > 0),
        usd_amount numeric NOT NULL,
        PRIMARY KEY (currency_id, day)
      );
      -- A player's statement reads their movements by business time.
      CREATE INDEX IF NOT EXISTS transactions_user_effective ON transactions (user_id, effective_at, position_commit, position_prepare);
    `,
  },
];
