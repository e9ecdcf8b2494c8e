import type pg from 'pg';
import { ownerLevelIdSql } from './affiliate-commission.projection.js';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/page.js';

export type AffiliateLevel = Readonly<{
  id: number;
  name: string;
  minWageredUsdAmount: string;
  commission: string;
  minReferralCountForClaim: number;
}>;

const LEVEL_COLUMNS = `id, name, trim_scale(min_wagered_usd)::text AS "minWageredUsdAmount", trim_scale(commission)::text AS commission,
  min_referral_count_for_claim AS "minReferralCountForClaim"`;

export const listLevels = async (pool: pg.Pool): Promise<AffiliateLevel[]> =>
  (await pool.query<AffiliateLevel>(`SELECT ${LEVEL_COLUMNS} FROM affiliate_levels ORDER BY min_wagered_usd, id`)).rows;

const SORT_COLUMNS = {
  CREATED_AT: 'r.created_at',
  CAMPAIGN: 'r.referrer_code',
  WAGERED_AMOUNT: 'COALESCE(s.total_wagered, 0)',
} as const;

export type AffiliateUser = Readonly<{
  id: number;
  username: string | null;
  campaign: string;
  createdAt: string;
  wageredUsdAmount: string;
  commission: string;
}>;

/** The users referred by an owner's codes: campaign = the code used, wagered from user_stats_usd, commission accrued to the owner. */
export const listReferredUsers = async (
  pool: pg.Pool,
  q: PageRequest & { ownerId: number; sortBy: keyof typeof SORT_COLUMNS; sortOrder: 'asc' | 'desc' },
): Promise<Page<AffiliateUser>> => {
  const dir = q.sortOrder === 'asc' ? 'ASC' : 'DESC';
  const { rows } = await pool.query<{
    id: string;
    username: string | null;
    campaign: string;
    created_at: Date;
    wagered: string;
    commission: string;
    total: string;
  }>(
    `SELECT r.user_id AS id, u.username, r.referrer_code AS campaign, r.created_at,
       trim_scale(COALESCE(s.total_wagered, 0))::text AS wagered, trim_scale(COALESCE(e.commission_usd, 0))::text AS commission,
       count(*) OVER () AS total
     FROM affiliate_referrals r
     LEFT JOIN users u ON u.id = r.user_id
     LEFT JOIN user_stats_usd s ON s.user_id = r.user_id
     LEFT JOIN affiliate_earnings e ON e.owner_id = r.referrer_user_id AND e.user_id = r.user_id
     WHERE r.referrer_user_id = $1 AND r.status = 'RESOLVED'
     ORDER BY ${SORT_COLUMNS[q.sortBy]} ${dir}, r.user_id ${dir} LIMIT $2 OFFSET $3`,
    [q.ownerId, q.take, offsetOf(q)],
  );
  const total = rows[0] ? Number(rows[0].total) : 0;
  return pageOf(
    rows.map((r) => ({
      id: Number(r.id),
      username: r.username,
      campaign: r.campaign,
      createdAt: r.created_at.toISOString(),
      wageredUsdAmount: r.wagered,
      commission: r.commission,
    })),
    total,
    q,
  );
};

type Totals = { level_id: number; referrals: number; active: number; wagered: string; earned: string; claimed: string };

const totalsOf = async (pool: pg.Pool, userId: number): Promise<Totals> =>
  (
    await pool.query<Totals>(
      `SELECT ${ownerLevelIdSql('$1::bigint')} AS level_id,
     (SELECT count(*)::int FROM affiliate_referrals WHERE referrer_user_id = $1 AND status = 'RESOLVED') AS referrals,
     (SELECT count(*)::int FROM affiliate_earnings WHERE owner_id = $1 AND wagered_usd > 0) AS active,
     (SELECT trim_scale(COALESCE(sum(wagered_usd), 0))::text FROM affiliate_earnings WHERE owner_id = $1) AS wagered,
     (SELECT trim_scale(COALESCE(sum(commission_usd), 0))::text FROM affiliate_earnings WHERE owner_id = $1) AS earned,
     (SELECT trim_scale(COALESCE(sum(usd_amount), 0))::text FROM affiliate_claims WHERE owner_id = $1) AS claimed`,
      [userId],
    )
  ).rows[0]!;

const userExists = async (pool: pg.Pool, userId: number): Promise<boolean> =>
  (await pool.query('SELECT 1 FROM users WHERE id = $1', [userId])).rowCount === 1;

/** Figures of an affiliate; undefined when the user is unknown. Claimable = earned − claimed (claims: POST /internal/affiliate-claims). */
export const affiliateStats = async (pool: pg.Pool, userId: number) => {
  if (!(await userExists(pool, userId))) return undefined;
  const t = await totalsOf(pool, userId);
  const claimable = (await pool.query<{ v: string }>('SELECT trim_scale($1::numeric - $2::numeric)::text AS v', [t.earned, t.claimed]))
    .rows[0]!.v;
  return {
    userId,
    levelId: t.level_id,
    referralCount: t.referrals,
    activeReferralCount: t.active,
    totalWageredUsdAmount: t.wagered,
    commissionEarnedUsdAmount: t.earned,
    commissionClaimedUsdAmount: t.claimed,
    commissionClaimableUsdAmount: claimable,
  };
};

/** The affiliate record of a user: codes with their referral counts, level, referral count and totals. */
export const affiliateRecord = async (pool: pg.Pool, userId: number) => {
  const stats = await affiliateStats(pool, userId);
  if (!stats) return undefined;
  const { rows: codes } = await pool.query<{ id: string; usersCount: number; createdAt: Date }>(
    `SELECT c.code AS id,
       (SELECT count(*)::int FROM affiliate_referrals r
         WHERE lower(r.referrer_code) = c.code AND r.referrer_user_id = c.user_id) AS "usersCount",
       c.created_at AS "createdAt" FROM affiliate_codes c WHERE c.user_id = $1 ORDER BY c.created_at, c.code`,
    [userId],
  );
  const level =
    (await pool.query<AffiliateLevel>(`SELECT ${LEVEL_COLUMNS} FROM affiliate_levels WHERE id = $1`, [stats.levelId])).rows[0] ?? null;
  const {
    rows: [custom],
  } = await pool.query<{ v: number | null }>(
    `SELECT COALESCE((to_jsonb(u)->>'custom_min_affiliate_level')::int, (u.profile->>'customMinAffiliateLevel')::int) AS v
     FROM users u WHERE u.id = $1`,
    [userId],
  );
  return {
    userId,
    affiliateCodes: codes.map((c) => ({ ...c, createdAt: c.createdAt.toISOString() })),
    level,
    customMinAffiliateLevel: custom?.v ?? null,
    referralCount: stats.referralCount,
    totalWageredUsdAmount: stats.totalWageredUsdAmount,
    commissionEarnedUsdAmount: stats.commissionEarnedUsdAmount,
    commissionClaimedUsdAmount: stats.commissionClaimedUsdAmount,
    commissionClaimableUsdAmount: stats.commissionClaimableUsdAmount,
    canClaim: level !== null && stats.referralCount >= level.minReferralCountForClaim && Number(stats.commissionClaimableUsdAmount) > 0,
  };
};
