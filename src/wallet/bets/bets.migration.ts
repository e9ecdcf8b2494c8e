import type { Migration } from '../../infra/migrate.js';

/** Bets and their list orders; 0104 also creates `admin_tips`, the admin-tips read model's table. */
export const betsMigrations: readonly Migration[] = [
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
    // Behind a status equality (default SETTLED) only an index in the list's exact order avoids sorting every matching row.
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
    // NOT NULL columns are ordered without a NULLS clause, so an ascending index read backwards serves the descending order.
    id: '0451_bets_list_orders_both_ways',
    sql: `
      DROP INDEX IF EXISTS bets_list_usd_amount_desc, bets_list_usd_payout_desc, bets_list_created_desc, bets_status_created;
      CREATE INDEX IF NOT EXISTS bets_list_created ON bets (status, created_at, id);`,
  },
  {
    // One status's multipliers are all NULL or none: one index serves both orders (docs/read-models.md, "bets").
    id: '0472_bets_unused_indexes',
    sql: `
      ALTER TABLE bets ADD CONSTRAINT bets_multiplier_when_settled CHECK ((multiplier IS NOT NULL) = (status = 'SETTLED')) NOT VALID;
      DROP INDEX IF EXISTS bets_list_multiplier_desc, bets_created;`,
  },
  { id: '0473_bets_multiplier_check_validated', sql: `ALTER TABLE bets VALIDATE CONSTRAINT bets_multiplier_when_settled;` },
  {
    // The business time of the bet's placement (docs/ledger.md, "Two times"); earlier rows: their recording time.
    // No index: every index costs each settle, and no list orders by it.
    id: '0483_bets_effective_at',
    sql: `
      ALTER TABLE bets ADD COLUMN IF NOT EXISTS effective_at timestamptz;
      UPDATE bets SET effective_at = created_at WHERE effective_at IS NULL;
      ALTER TABLE bets ALTER COLUMN effective_at SET NOT NULL;`,
  },
];
