import type pg from 'pg';
import { migrate, type Migration } from '../infra/migrate.js';
import { limitsMigrations } from './limits.migration.js';

/** Command-side tables of identity and access: never rebuilt from events, never truncated. */
export const userMigrations: readonly Migration[] = [
  {
    id: '0060_users_command_side',
    sql: `
      CREATE SEQUENCE user_id_seq;
      -- Case-insensitive uniqueness of e-mails and usernames, and identity-provider subjects, claimed before the append.
      CREATE TABLE user_keys (
        kind text NOT NULL CHECK (kind IN ('email', 'username', 'google', 'steam')),
        key text NOT NULL,
        user_id bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (kind, key)
      );
      CREATE INDEX user_keys_user ON user_keys (user_id);
      -- Secrets stay out of the immutable log.
      CREATE TABLE user_credentials (
        user_id bigint PRIMARY KEY,
        password_hash text,
        mfa_secret text,          -- AES-256-GCM sealed
        mfa_pending_secret text,  -- sealed; set by /auth/mfa/setup until enabled
        last_totp_step bigint,    -- a TOTP code is accepted once
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      -- The user stream folded, written right after each append: what the authenticator reads on every request.
      CREATE TABLE user_access (
        user_id bigint PRIMARY KEY,
        revision bigint NOT NULL,
        state jsonb NOT NULL,
        roles text[] NOT NULL,
        permissions text[] NOT NULL,
        is_banned boolean NOT NULL,
        username text
      );
      CREATE TABLE sessions (
        id uuid PRIMARY KEY,
        user_id bigint NOT NULL,
        refresh_hash text NOT NULL UNIQUE, -- sha-256 of the current refresh token
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        revoked_reason text,
        ip text,
        user_agent text,
        created_at timestamptz NOT NULL DEFAULT now(),
        refreshed_at timestamptz
      );
      CREATE INDEX sessions_user ON sessions (user_id);
      -- Refresh tokens already rotated away: presenting one again revokes its session.
      CREATE TABLE session_rotated_refresh (
        refresh_hash text PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        rotated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX session_rotated_refresh_session ON session_rotated_refresh (session_id);
      CREATE TABLE mfa_challenges_used (
        jti text PRIMARY KEY,
        expires_at timestamptz NOT NULL
      );
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        user_id bigint NOT NULL,
        key_hash text NOT NULL UNIQUE, -- sha-256; the key itself is shown once
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      );
      CREATE INDEX api_keys_user ON api_keys (user_id);
    `,
  },
  ...limitsMigrations,
];

export const migrateUsers = (pool: pg.Pool): Promise<string[]> => migrate(pool, userMigrations);
