import type { Migration } from '../infra/migrate.js';

/** Command-side tables of user limits and API keys (never rebuilt, never truncated). */
export const limitsMigrations: readonly Migration[] = [
  {
    id: '0062_user_limits_api_keys',
    sql: `
      CREATE SEQUENCE self_exclusion_id_seq;
      CREATE SEQUENCE bet_limit_id_seq;
      -- The limits stream folded, written right after each append: what the ledger reads on every bet.
      CREATE TABLE user_limits (
        user_id bigint PRIMARY KEY,
        revision bigint NOT NULL,
        state jsonb NOT NULL
      );
      ALTER TABLE api_keys
        ADD COLUMN prefix text,
        ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
        ADD COLUMN created_by bigint,
        ADD COLUMN revoked_by bigint;
      CREATE INDEX api_keys_user_active ON api_keys (user_id, created_at DESC) WHERE revoked_at IS NULL;
    `,
  },
];
