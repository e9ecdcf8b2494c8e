import type pg from 'pg';
import { migrate, type Migration } from '../infra/migrate.js';
import { rakebackMigration } from '../read-models/rakeback/rakeback.projection.js';
import { backOfficeContentMigrations } from './back-office-content.migrations.js';
import { leaderboardMigrations } from '../leaderboards/leaderboards.migrations.js';
import { usersReadModelMigrations } from '../read-models/users/users.migrations.js';
import { gatewayMigrations } from '../realtime/gateway.migrations.js';
import { chatMigrations } from '../commands/chat.migrations.js';
import { notificationsMigrations } from '../read-models/notifications/notifications.migrations.js';
import { auditMigrations } from '../audit/audit.migrations.js';
import { adminAuditMigrations } from '../read-models/admin-audit/admin-audit.migrations.js';
import { projectionOpsMigrations } from './projection-ops.migrations.js';
import { listCountsMigration } from '../read-models/list-counts/list-counts.js';

/**
 * Read-model tables. Money columns are `numeric` in major units (0.5 BTC is 0.5), exact; USD
 * figures likewise. Timestamps come from the events (`data.at`), never from now(), so a rebuild
 * produces identical rows.
 */
export const readModelMigrations: Migration[] = [
  {
    id: '0100_projection_checkpoints',
    sql: `
      CREATE TABLE projection_checkpoints (
        name text PRIMARY KEY,
        version integer NOT NULL,
        position text NOT NULL, -- formatPosition: "commit/prepare"; the last event applied
        updated_at timestamptz NOT NULL DEFAULT now()
      );`,
  },
  {
    id: '0101_balances',
    sql: `
      CREATE TABLE wallet_balances (
        user_id bigint NOT NULL,
        currency_id text NOT NULL,
        balance numeric NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, currency_id)
      );
      CREATE INDEX wallet_balances_currency_balance ON wallet_balances (currency_id, balance);
      -- The trial balance: every house and user account; per currency the balances sum to zero.
      CREATE TABLE account_balances (
        account text NOT NULL,
        currency_id text NOT NULL,
        balance numeric NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (account, currency_id)
      );`,
  },
  {
    id: '0102_transactions',
    sql: `
      CREATE TABLE transactions (
        id text PRIMARY KEY, -- the event's transactionId
        user_id bigint NOT NULL,
        currency_id text NOT NULL,
        amount numeric NOT NULL, -- signed, from the user's point of view
        before_balance numeric NOT NULL,
        after_balance numeric NOT NULL,
        usd_amount numeric, -- unsigned USD value when the event carries one
        type text NOT NULL CHECK (type IN ('DEPOSIT', 'BET', 'BET_PAYOUT', 'ROLLBACK_BET', 'BET_ERROR_REFUND', 'WITHDRAW',
          'WITHDRAW_REFUND', 'ADMIN_TIP', 'ADMIN_DEDUCT', 'BALANCE_SET', 'LEADERBOARD_PRIZE')),
        original_id text, -- ROLLBACK_BET and BET_ERROR_REFUND: the placement's transaction id
        admin_user_id bigint,
        reference_id text, -- bet, deposit, withdrawal, tip or leaderboard-user id
        event_id uuid NOT NULL UNIQUE,
        position text NOT NULL,
        position_commit numeric(20, 0) NOT NULL,
        position_prepare numeric(20, 0) NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX transactions_user_created ON transactions (user_id, created_at DESC);
      CREATE INDEX transactions_type_created ON transactions (type, created_at DESC);
      CREATE INDEX transactions_created ON transactions (created_at DESC);
      CREATE INDEX transactions_reference ON transactions (reference_id);
      CREATE INDEX transactions_position ON transactions (position_commit, position_prepare);`,
  },
  {
    id: '0103_deposits_withdrawals',
    sql: `
      CREATE TABLE deposits (
        id text PRIMARY KEY,
        user_id bigint NOT NULL,
        external_id text NOT NULL,
        provider_id text NOT NULL,
        network_id text NOT NULL,
        currency_id text NOT NULL,
        amount numeric NOT NULL,
        usd_amount numeric NOT NULL,
        status text NOT NULL CHECK (status IN ('PENDING', 'CONFIRMED', 'COMPLETE', 'FAILED')),
        tx_hash text,
        pay_address text,
        pay_memo text,
        transaction_id text, -- set when COMPLETE
        failed_reason text,
        affiliate_amount numeric,
        deposit_bonus numeric,
        affiliate_code_id text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        confirmed_at timestamptz,
        completed_at timestamptz,
        UNIQUE (provider_id, external_id)
      );
      CREATE INDEX deposits_created ON deposits (created_at DESC);
      CREATE INDEX deposits_user ON deposits (user_id, created_at DESC);
      CREATE INDEX deposits_status ON deposits (status, created_at DESC);
      CREATE INDEX deposits_usd_amount ON deposits (usd_amount);
      CREATE INDEX deposits_confirmed ON deposits (confirmed_at);
      CREATE INDEX deposits_completed ON deposits (completed_at);
      CREATE TABLE withdrawals (
        id text PRIMARY KEY,
        user_id bigint NOT NULL,
        currency_id text NOT NULL,
        network_id text NOT NULL,
        provider_id text NOT NULL,
        amount numeric NOT NULL,
        usd_amount numeric NOT NULL,
        status text NOT NULL CHECK (status IN ('PENDING', 'CONFIRMED', 'COMPLETE', 'DENIED', 'FAILED')),
        recipient_address text NOT NULL,
        recipient_memo text,
        operation_key text NOT NULL,
        transaction_id text NOT NULL, -- the hold's transaction
        tx_hash text,
        reject_reason text,
        failed_reason text,
        confirmations integer NOT NULL,
        confirmed_at timestamptz,
        confirmed_by_user_id bigint,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        completed_at timestamptz
      );
      CREATE INDEX withdrawals_created ON withdrawals (created_at DESC);
      CREATE INDEX withdrawals_user ON withdrawals (user_id, created_at DESC);
      CREATE INDEX withdrawals_status ON withdrawals (status, created_at DESC);
      CREATE INDEX withdrawals_usd_amount ON withdrawals (usd_amount);`,
  },
  {
    id: '0104_bets_tips',
    sql: `
      CREATE TABLE bets (
        id text PRIMARY KEY,
        user_id bigint NOT NULL,
        round_id text NOT NULL,
        game_id integer NOT NULL,
        game_name text NOT NULL,
        game_slug text NOT NULL,
        game_type text NOT NULL,
        game_provider text NOT NULL,
        currency_id text NOT NULL,
        amount numeric NOT NULL,
        usd_amount numeric NOT NULL,
        payout numeric NOT NULL,
        usd_payout numeric NOT NULL,
        multiplier numeric, -- payout / amount once SETTLED
        status text NOT NULL CHECK (status IN ('CREATED', 'SETTLED', 'ERROR', 'ROLLBACK')),
        error_details text,
        transaction_id text NOT NULL, -- the placement's transaction
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        settled_at timestamptz
      );
      CREATE INDEX bets_status_created ON bets (status, created_at DESC);
      CREATE INDEX bets_user_created ON bets (user_id, created_at DESC);
      CREATE INDEX bets_created ON bets (created_at DESC);
      -- Every index costs each settle (an UPDATE that cannot be HOT): only the list orders live here;
      -- the filters' indexes come with the back-office queries and their benchmark.
      CREATE TABLE admin_tips (
        id integer PRIMARY KEY, -- tipId
        type text NOT NULL CHECK (type IN ('ADD_BALANCE', 'DEDUCT_BALANCE')),
        currency_id text NOT NULL,
        amount numeric NOT NULL,
        usd_amount numeric NOT NULL,
        tag text,
        notes text NOT NULL,
        sender_user_id bigint NOT NULL, -- the admin
        recipient_user_id bigint NOT NULL,
        operation_key text NOT NULL,
        transaction_id text NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX admin_tips_created ON admin_tips (created_at DESC);
      CREATE INDEX admin_tips_amount ON admin_tips (amount);
      CREATE INDEX admin_tips_sender ON admin_tips (sender_user_id, created_at DESC);
      CREATE INDEX admin_tips_recipient ON admin_tips (recipient_user_id, created_at DESC);`,
  },
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
    id: '0110_users',
    sql: `
      CREATE TABLE users (
        id bigint PRIMARY KEY,
        email text,
        username text,
        roles text[] NOT NULL,
        permissions text[] NOT NULL,
        is_banned boolean NOT NULL,
        ban_reason text,
        banned_by bigint,
        country text,
        mfa_enabled boolean NOT NULL,
        provider text NOT NULL,
        identity_providers text[] NOT NULL,
        referrer_code text,
        marketing_opt_in boolean NOT NULL,
        profile jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        unbanned_by bigint
      );
      CREATE INDEX users_email ON users (lower(email));
      CREATE INDEX users_username ON users (lower(username));
      CREATE INDEX users_created ON users (created_at DESC);
      CREATE TABLE registration_info (
        user_id bigint PRIMARY KEY,
        ip text,
        user_agent text,
        country text,
        referrer text,
        referrer_code text,
        provider text NOT NULL,
        created_at timestamptz NOT NULL
      );`,
  },
  {
    id: '0111_sign_up_effects',
    sql: `
      CREATE TABLE analytics_events (
        event_id uuid PRIMARY KEY,
        user_id bigint NOT NULL,
        name text NOT NULL,
        properties jsonb NOT NULL,
        created_at timestamptz NOT NULL
      );
      -- Affiliate codes arrive with the affiliate issue; referrals resolve against them (lower-case codes).
      CREATE TABLE IF NOT EXISTS affiliate_codes (
        code text PRIMARY KEY,
        user_id bigint NOT NULL
      );
      CREATE TABLE affiliate_referrals (
        user_id bigint PRIMARY KEY,
        referrer_code text NOT NULL,
        referrer_user_id bigint,
        status text NOT NULL CHECK (status IN ('RESOLVED', 'UNRESOLVED')),
        created_at timestamptz NOT NULL
      );
      CREATE TABLE welcome_bonus_jobs (
        user_id bigint PRIMARY KEY,
        status text NOT NULL CHECK (status IN ('QUEUED', 'PAID', 'SKIPPED')),
        created_at timestamptz NOT NULL
      );`,
  },
  ...leaderboardMigrations,
  rakebackMigration,
  ...usersReadModelMigrations,
  {
    // The bets list orders by <column> <dir> NULLS LAST, id <dir> behind a status equality (default SETTLED):
    // only an index in exactly that order avoids sorting every matching row (measured by npm run bench:queries).
    // ASC on created_at is served backwards by bets_status_created.
    id: '0160_bets_list_orders',
    sql: `
      CREATE INDEX bets_list_created_desc ON bets (status, created_at DESC NULLS LAST, id DESC);
      CREATE INDEX bets_list_multiplier_desc ON bets (status, multiplier DESC NULLS LAST, id DESC);
      CREATE INDEX bets_list_multiplier_asc ON bets (status, multiplier ASC NULLS LAST, id ASC);
      CREATE INDEX bets_list_usd_amount_desc ON bets (status, usd_amount DESC NULLS LAST, id DESC);
      CREATE INDEX bets_list_usd_amount_asc ON bets (status, usd_amount ASC NULLS LAST, id ASC);
      CREATE INDEX bets_list_usd_payout_desc ON bets (status, usd_payout DESC NULLS LAST, id DESC);
      CREATE INDEX bets_list_usd_payout_asc ON bets (status, usd_payout ASC NULLS LAST, id ASC);`,
  },
  {
    // Affiliate commission claims (internal ledger API) form their own accounting type. The check is
    // found by what it says, not by name: a blue/green rebuild may have copied the table under another.
    id: '0430_transactions_affiliate_claim',
    sql: `
      DO $$
      DECLARE c text;
      BEGIN
        FOR c IN SELECT conname FROM pg_constraint
                 WHERE conrelid = 'transactions'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%LEADERBOARD_PRIZE%'
        LOOP
          EXECUTE format('ALTER TABLE transactions DROP CONSTRAINT %I', c);
        END LOOP;
      END $$;
      ALTER TABLE transactions ADD CONSTRAINT transactions_type_check CHECK (type IN ('DEPOSIT', 'BET', 'BET_PAYOUT', 'ROLLBACK_BET',
        'BET_ERROR_REFUND', 'WITHDRAW', 'WITHDRAW_REFUND', 'ADMIN_TIP', 'ADMIN_DEDUCT', 'BALANCE_SET', 'LEADERBOARD_PRIZE', 'AFFILIATE_CLAIM'));`,
  },
  listCountsMigration,
  ...backOfficeContentMigrations,
  ...gatewayMigrations,
  ...chatMigrations,
  ...notificationsMigrations,
  ...auditMigrations,
  ...adminAuditMigrations,
  ...projectionOpsMigrations,
];

export const migrateReadModels = (pool: pg.Pool): Promise<string[]> => migrate(pool, readModelMigrations);
