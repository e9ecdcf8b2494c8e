import type { Migration } from '../../infra/migrate.js';

/**
 * The back office's user records; 0190 adds what the full record needs (filled from the users projection's version 2),
 * 0600 the KYC level (no event set one before it, so nothing is replayed).
 */
export const usersMigrations: readonly Migration[] = [
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
    id: '0190_users_identity_columns',
    sql: `
      ALTER TABLE users ADD COLUMN game_platform_id text, ADD COLUMN identity_provider_email text;
      -- GET /user/get-admins-with-roles and the role filter of /user/all.
      CREATE INDEX users_roles ON users USING gin (roles);`,
  },
  {
    id: '0600_users_kyc',
    sql: `
      ALTER TABLE users ADD COLUMN kyc_level text, ADD COLUMN kyc_verification_pending boolean,
        ADD COLUMN kyc_created_at timestamptz, ADD COLUMN kyc_updated_at timestamptz;`,
  },
];
