import type { Migration } from '../../infra/migrate.js';

/** Affiliate levels, earnings and claims; 0190 also indexes the sign-up-effects read model's codes and referrals. */
export const affiliateCommissionMigrations: readonly Migration[] = [
  {
    id: '0190_affiliates',
    sql: `
      CREATE TABLE affiliate_levels (
        id integer PRIMARY KEY,
        name text NOT NULL,
        min_wagered_usd numeric NOT NULL CHECK (min_wagered_usd >= 0),
        commission numeric NOT NULL CHECK (commission >= 0 AND commission < 1),
        min_referral_count_for_claim integer NOT NULL CHECK (min_referral_count_for_claim >= 0)
      );
      -- Thresholds on the referred users' total settled wagered USD; commission is a fraction of it (docs/back-office.md).
      INSERT INTO affiliate_levels (id, name, min_wagered_usd, commission, min_referral_count_for_claim) VALUES
        (1, 'Bronze', 0, 0.05, 1), (2, 'Silver', 10000, 0.075, 3), (3, 'Gold', 50000, 0.1, 5),
        (4, 'Platinum', 250000, 0.125, 10), (5, 'Diamond', 1000000, 0.15, 25);
      ALTER TABLE affiliate_codes ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();
      CREATE INDEX affiliate_codes_owner ON affiliate_codes (user_id);
      CREATE INDEX affiliate_referrals_owner ON affiliate_referrals (referrer_user_id, created_at);
      -- Commission accrued per owner and referred user, in USD (the affiliate-commission projection).
      CREATE TABLE affiliate_earnings (
        owner_id bigint NOT NULL,
        user_id bigint NOT NULL,
        wagered_usd numeric NOT NULL DEFAULT 0,
        commission_usd numeric NOT NULL DEFAULT 0,
        claimed_usd numeric NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (owner_id, user_id)
      );`,
  },
  {
    // One row per affiliate commission claimed (affiliate-commission projection, AffiliateCommissionClaimed).
    // Claimed totals come from here; affiliate_earnings.claimed_usd is not written.
    id: '0431_affiliate_claims',
    sql: `
      CREATE TABLE affiliate_claims (
        claim_id text PRIMARY KEY,
        owner_id bigint NOT NULL,
        currency_id text NOT NULL,
        amount numeric NOT NULL,
        usd_amount numeric NOT NULL,
        transaction_id text NOT NULL,
        event_id uuid NOT NULL UNIQUE,
        claimed_at timestamptz NOT NULL
      );
      CREATE INDEX affiliate_claims_owner ON affiliate_claims (owner_id, claimed_at);`,
  },
];
