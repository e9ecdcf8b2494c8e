import { insertRows, walletRecords, type Projection, type Row } from '../../projections/projection.js';
import { overRows, settledBets } from '../batch-rows.js';

const HANDLES: readonly string[] = ['BetSettled', 'AffiliateCommissionClaimed'];

/** SQL for an owner's affiliate level: the highest their referrals' wagered USD reaches, at least customMinAffiliateLevel, capped. */
export const ownerLevelIdSql = (owner: string): string => `LEAST((SELECT max(id) FROM affiliate_levels), GREATEST(
  COALESCE((SELECT l.id FROM affiliate_levels l
    WHERE l.min_wagered_usd <= COALESCE((SELECT sum(e.wagered_usd) FROM affiliate_earnings e WHERE e.owner_id = ${owner}), 0)
    ORDER BY l.min_wagered_usd DESC, l.id DESC LIMIT 1), 1),
  COALESCE((SELECT COALESCE((to_jsonb(u)->>'custom_min_affiliate_level')::int, (u.profile->>'customMinAffiliateLevel')::int)
    FROM users u WHERE u.id = ${owner}), 0)))`;

/** Referred users' stakes accrue when they settle, at the owner's level as it stands before the batch. */
const ACCRUE = `
  WITH s AS (
    SELECT r.referrer_user_id AS owner_id, c.user_id, sum(c.usd_amount) AS wagered, max(c.at) AS at
    FROM json_to_recordset($1::json) AS c(user_id bigint, usd_amount numeric, at timestamptz)
    JOIN affiliate_referrals r ON r.user_id = c.user_id AND r.status = 'RESOLVED'
    GROUP BY 1, 2
  ), rated AS (
    SELECT s.*, (SELECT l.commission FROM affiliate_levels l WHERE l.id = ${ownerLevelIdSql('s.owner_id')}) AS rate FROM s
  )
  INSERT INTO affiliate_earnings AS a (owner_id, user_id, wagered_usd, commission_usd, updated_at)
  SELECT owner_id, user_id, wagered, round(wagered * COALESCE(rate, 0), 8), at FROM rated
  ON CONFLICT (owner_id, user_id) DO UPDATE SET
    wagered_usd = a.wagered_usd + EXCLUDED.wagered_usd,
    commission_usd = a.commission_usd + EXCLUDED.commission_usd,
    updated_at = GREATEST(a.updated_at, EXCLUDED.updated_at)`;

/** Affiliate commission: a referred user's settled USD stake × the owner's level rate; each claim is an affiliate_claims row. */
export const affiliateCommissionProjection: Projection = {
  name: 'affiliate-commission',
  version: 1,
  handles: HANDLES,
  tables: ['affiliate_earnings', 'affiliate_claims'],
  project(events) {
    const settled = settledBets(events, (userId, bet) => ({ user_id: userId, usd_amount: bet.usdAmount, at: bet.at }));
    const claims = walletRecords(events, HANDLES).flatMap<Row>(({ userId, event, recorded }) => {
      if (event.type !== 'AffiliateCommissionClaimed') return [];
      const d = event.data;
      return {
        claim_id: d.claimId,
        owner_id: userId,
        currency_id: d.currencyId,
        amount: d.amount,
        usd_amount: d.usdAmount,
        transaction_id: d.transactionId,
        event_id: recorded.id,
        claimed_at: d.at,
      };
    });
    return [...overRows(ACCRUE, settled), ...insertRows('affiliate_claims', claims)];
  },
};
