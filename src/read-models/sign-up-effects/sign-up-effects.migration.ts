import type { Migration } from '../../infra/migrate.js';

/** What a sign-up leaves behind: analytics, referrals, the welcome bonus job. */
export const signUpEffectsMigrations: readonly Migration[] = [
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
];
