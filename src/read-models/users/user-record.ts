import type pg from 'pg';
import { DEFAULT_AVATAR_URL, PROFILE_DEFAULTS, vipLevelSql } from '../../domain/user/vip.js';
import type { Kyc, KycLevel } from '../../domain/user/kyc.js';
import type { RegisteredUser } from '../../domain/user/user.state.js';
import { iso, type AnyRow } from '../list-page.js';

/** What the full user record is built from: live command-side state (single user) or a `users` read-model row (lists). */
export type UserCore = Readonly<{
  id: number;
  email: string | null;
  username: string | null;
  country: string | null;
  roles: readonly string[];
  permissions: readonly string[];
  isBanned: boolean;
  banReason: string | null;
  mfaEnabled: boolean;
  referrerCode: string | null;
  profile: Readonly<Record<string, unknown>>;
  gamePlatformId: string | null;
  identityProviderEmail: string | null;
  kyc: Kyc | null;
  createdAt: string;
  updatedAt: string;
}>;

export const coreOfState = (u: RegisteredUser): UserCore => ({
  id: u.userId,
  email: u.email,
  username: u.username,
  country: u.country,
  roles: u.roles,
  permissions: u.permissions,
  isBanned: u.banned !== null,
  banReason: u.banned?.reason ?? null,
  mfaEnabled: u.mfaEnabled,
  referrerCode: u.referrerCode,
  profile: u.profile,
  gamePlatformId: u.identities.find((i) => i.provider === 'steam')?.subject ?? null,
  identityProviderEmail: u.identities.find((i) => i.provider === 'google')?.email ?? null,
  kyc: u.kyc ?? null,
  createdAt: u.createdAt,
  updatedAt: u.updatedAt,
});

export const coreOfRow = (r: AnyRow): UserCore => ({
  id: Number(r.id),
  email: r.email,
  username: r.username,
  country: r.country,
  roles: r.roles,
  permissions: r.permissions,
  isBanned: r.is_banned,
  banReason: r.ban_reason,
  mfaEnabled: r.mfa_enabled,
  referrerCode: r.referrer_code,
  profile: r.profile,
  gamePlatformId: r.game_platform_id,
  identityProviderEmail: r.identity_provider_email,
  kyc:
    r.kyc_level === null
      ? null
      : {
          level: r.kyc_level as KycLevel,
          verificationPending: r.kyc_verification_pending === true,
          createdAt: (r.kyc_created_at as Date).toISOString(),
          updatedAt: (r.kyc_updated_at as Date).toISOString(),
        },
  createdAt: (r.created_at as Date).toISOString(),
  updatedAt: (r.updated_at as Date).toISOString(),
});

/** SQL over `u` (users or just an id) and `s` (user_stats_usd): the USD figures the record, sorts and filters use. */
export const WAGERED_SQL = 'coalesce(s.total_wagered, 0)';
export const VIP_LEVEL_SQL = vipLevelSql(WAGERED_SQL);
export const BALANCE_USD_SQL = `(SELECT coalesce(sum(w.balance * coalesce(r.usd_rate, 0)), 0) FROM wallet_balances w
  LEFT JOIN currency_rates r ON r.currency_id = w.currency_id WHERE w.user_id = u.id)`;
export const LAST_LOGIN_SQL = '(SELECT max(ss.created_at) FROM sessions ss WHERE ss.user_id = u.id)';

const stat = (c: string) => `trim_scale(coalesce(s.${c}, 0))::text AS s_${c}`;
/** The extra columns of a record (`x_*`, `s_*`); expects `u` and a LEFT JOIN of user_stats_usd as `s`. */
export const EXTRA_COLUMNS = [
  `${VIP_LEVEL_SQL} AS x_vip_level`,
  `${LAST_LOGIN_SQL} AS x_last_login_at`,
  `(SELECT json_build_object('total', trim_scale(coalesce(sum(w.balance * coalesce(r.usd_rate, 0)), 0))::text,
     'currencies', coalesce(json_agg(json_build_object('currencyId', w.currency_id, 'balance', trim_scale(w.balance)::text,
       'usdBalance', trim_scale(w.balance * coalesce(r.usd_rate, 0))::text) ORDER BY w.currency_id), '[]'::json))
    FROM wallet_balances w LEFT JOIN currency_rates r ON r.currency_id = w.currency_id WHERE w.user_id = u.id) AS x_usd_balance`,
  ...['total_wagered', 'total_payouts', 'total_deposits', 'total_withdraws', 'ltv', 'ggr'].map(stat),
  'coalesce(s.total_bets, 0) AS s_total_bets',
  's.first_deposit_at AS s_first_deposit_at',
  's.last_deposit_at AS s_last_deposit_at',
  's.last_wagered_at AS s_last_wagered_at',
].join(', ');

export type ViewFlags = Readonly<{ permissions: boolean; roles: boolean; notes: boolean; balance: boolean; statsUsd: boolean }>;
export const ALL_FLAGS: ViewFlags = { permissions: true, roles: true, notes: true, balance: true, statsUsd: true };

const statsUsdOf = (x: AnyRow) => ({
  totalWagered: x.s_total_wagered,
  totalPayouts: x.s_total_payouts,
  totalDeposits: x.s_total_deposits,
  totalWithdraws: x.s_total_withdraws,
  ltv: x.s_ltv,
  ggr: x.s_ggr,
  totalLoss: x.s_ggr,
  totalBets: Number(x.s_total_bets),
  firstDepositAt: iso(x.s_first_deposit_at),
  lastDepositAt: iso(x.s_last_deposit_at),
  lastWageredAt: iso(x.s_last_wagered_at),
});

/**
 * The spec's User KYC record: the ledger keeps the level and whether a verification is pending; the personal details
 * (names, address, date of birth, occupation, gender) stay with the KYC provider and answer null.
 */
export const kycRecord = (userId: number, kyc: Kyc | null) =>
  kyc && {
    gender: null,
    level: kyc.level,
    firstName: null,
    lastName: null,
    countryCode: null,
    address: null,
    postalCode: null,
    city: null,
    occupation: null,
    dateOfBirth: null,
    verificationPending: kyc.verificationPending,
    userId,
    createdAt: kyc.createdAt,
    updatedAt: kyc.updatedAt,
  };

/** The spec's User record. No secret ever leaves: mfaSecret is always null. Notes have no store yet (empty). */
export const fullUser = (c: UserCore, x: AnyRow, flags: ViewFlags) => {
  const p = { ...PROFILE_DEFAULTS, ...c.profile } as Record<string, unknown>;
  return {
    exp: x.s_total_wagered as string,
    permissions: flags.permissions ? [...c.permissions] : [],
    id: c.id,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    username: c.username,
    isPrivate: p.isPrivate,
    email: c.email,
    emailVerified: p.emailVerified === true,
    lastLoginAt: iso(x.x_last_login_at),
    avatar: typeof p.avatar === 'string' ? p.avatar : DEFAULT_AVATAR_URL,
    mfaSecret: null,
    vipLevel: Number(x.x_vip_level),
    gamePlatformId: c.gamePlatformId,
    gamePlatformTradeLink: p.gamePlatformTradeLink,
    identityProviderEmail: c.identityProviderEmail,
    isStreamer: p.isStreamer,
    isStreamerMode: p.isStreamerMode,
    isStaff: p.isStaff,
    isVideoCreator: p.isVideoCreator,
    canUseChat: p.canUseChat,
    isBanned: c.isBanned,
    banReason: c.banReason,
    roles: flags.roles ? c.roles.map((role) => ({ role, userId: c.id })) : [],
    kyc: kycRecord(c.id, c.kyc),
    isEmailNotificationsEnabled: p.isEmailNotificationsEnabled,
    customMinAffiliateLevel: p.customMinAffiliateLevel,
    isTest: p.isTest,
    isBot: p.isBot === true,
    affiliateCodeId: c.referrerCode,
    country: c.country,
    mfaEnabled: c.mfaEnabled,
    ...(flags.notes ? { notes: [] } : {}),
    ...(flags.balance ? { usdBalance: x.x_usd_balance as unknown } : {}),
    ...(flags.statsUsd ? { statsUsd: statsUsdOf(x) } : {}),
  };
};

/** One user's full record from live state (read-your-writes after an admin change). */
export const fullUserOf = async (pool: pg.Pool, state: RegisteredUser) => {
  const { rows } = await pool.query<AnyRow>(
    `SELECT ${EXTRA_COLUMNS} FROM (SELECT $1::bigint AS id) u LEFT JOIN user_stats_usd s ON s.user_id = u.id`,
    [state.userId],
  );
  return fullUser(coreOfState(state), rows[0]!, ALL_FLAGS);
};
