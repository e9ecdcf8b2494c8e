import type { Migration } from '../../infra/migrate.js';

/** The accounting log's table and its type check. */
/** The tail of 0430's type list, kept out of the SQL only for line length: the SQL text is unchanged. */
const LATER_TYPES =
  "'BET_ERROR_REFUND', 'WITHDRAW', 'WITHDRAW_REFUND', 'ADMIN_TIP', 'ADMIN_DEDUCT', 'BALANCE_SET', " +
  "'LEADERBOARD_PRIZE', 'AFFILIATE_CLAIM'";

export const transactionsMigrations: readonly Migration[] = [
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
        ${LATER_TYPES}));`,
  },
  {
    // No query looks rows up by reference or position alone; one index serves the (created_at, position) order both ways.
    id: '0452_transactions_indexes',
    sql: `
      DROP INDEX IF EXISTS transactions_reference, transactions_position, transactions_created;
      CREATE INDEX IF NOT EXISTS transactions_created_position ON transactions (created_at, position_commit, position_prepare);`,
  },
  {
    // Business time of each movement (docs/ledger.md, "Two times"); rows before it had only the recording time, which it was.
    // Exports and the as-of readers range over it in ledger order.
    id: '0480_transactions_effective_at',
    sql: `
      ALTER TABLE transactions ADD COLUMN IF NOT EXISTS effective_at timestamptz;
      UPDATE transactions SET effective_at = created_at WHERE effective_at IS NULL;
      ALTER TABLE transactions ALTER COLUMN effective_at SET NOT NULL;
      CREATE INDEX IF NOT EXISTS transactions_effective_position ON transactions (effective_at, position_commit, position_prepare);`,
  },
];
