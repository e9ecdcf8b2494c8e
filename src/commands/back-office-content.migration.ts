import type { Migration } from '../infra/migrate.js';

/** Site configuration, FAQ and chat moderation: command-side tables, written directly, never projected. */
export const backOfficeContentMigrations: readonly Migration[] = [
  {
    id: '0191_site_config_faq_chat',
    sql: `
      CREATE TABLE site_config (
        code text PRIMARY KEY CHECK (code IN ('COMMON', 'BATTLES', 'AFFILIATES', 'WITHDRAWALS')),
        config jsonb NOT NULL,
        revision bigint NOT NULL,
        updated_by bigint NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE TABLE faq (
        id serial PRIMARY KEY,
        title text NOT NULL,
        text text NOT NULL,
        "order" integer NOT NULL,
        created_by bigint NOT NULL,
        updated_by bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE chat_moderation (
        id bigserial PRIMARY KEY,
        action text NOT NULL CHECK (action IN ('delete_message', 'set_rate_limit')),
        args jsonb NOT NULL,
        admin_user_id bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        applied_at timestamptz
      );
      CREATE TABLE chat_room_limits (
        room_id text PRIMARY KEY,
        messages_per_minute integer NOT NULL CHECK (messages_per_minute BETWEEN 1 AND 600),
        updated_by bigint NOT NULL,
        updated_at timestamptz NOT NULL
      );`,
  },
];
