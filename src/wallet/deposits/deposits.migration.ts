import type { Migration } from '../../infra/migrate.js';

/** Deposits; 0103 also creates `withdrawals`, the withdrawals read model's table. */
export const depositsMigrations: readonly Migration[] = [
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
    // The business time of the deposit's request (docs/ledger.md, "Two times"); earlier rows: their recording time.
    id: '0481_deposits_effective_at',
    sql: `
      ALTER TABLE deposits ADD COLUMN IF NOT EXISTS effective_at timestamptz;
      UPDATE deposits SET effective_at = created_at WHERE effective_at IS NULL;
      ALTER TABLE deposits ALTER COLUMN effective_at SET NOT NULL;`,
  },
  {
    // A deposit that completed held (past the deposit limit): HELD, then RELEASED or RETURNED by an admin; NULL otherwise.
    id: '0580_deposits_hold',
    sql: `
      ALTER TABLE deposits ADD COLUMN IF NOT EXISTS hold text CHECK (hold IN ('HELD', 'RELEASED', 'RETURNED'));
      CREATE INDEX IF NOT EXISTS deposits_held ON deposits (created_at DESC) WHERE hold = 'HELD';`,
  },
];
