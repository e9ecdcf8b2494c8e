import { usdToMinor, type DecimalString } from '../money/money.js';

/** Level n is reached at VIP_THRESHOLDS_USD[n - 1] of total wagered USD (settled bets); below the first it is 0. */
export const VIP_THRESHOLDS_USD = ['1000', '10000', '50000', '250000', '1000000'] as const;

/** VIP level of a total wagered USD amount, exactly (the same table as vipLevelSql). */
export const vipLevelOf = (wageredUsd: DecimalString): number => {
  const w = usdToMinor(wageredUsd);
  return VIP_THRESHOLDS_USD.reduce((level, t, i) => (w >= usdToMinor(t as DecimalString) ? i + 1 : level), 0);
};

/** The level as a SQL expression over a numeric USD expression (one definition for lists, filters and sorts). */
export const vipLevelSql = (wageredUsd: string): string =>
  `(CASE ${VIP_THRESHOLDS_USD.map((t, i) => [t, i + 1] as const)
    .reverse()
    .map(([t, level]) => `WHEN ${wageredUsd} >= ${t} THEN ${level}`)
    .join(' ')} ELSE 0 END)`;

/** Admin-editable profile fields (PATCH /user/{id}) and their values for a user nobody edited yet. */
export const PROFILE_DEFAULTS = {
  isStaff: false,
  isVideoCreator: false,
  customMinAffiliateLevel: 0,
  isTest: false,
  isStreamer: false,
  canUseChat: true,
  isPrivate: false,
  isStreamerMode: false,
  isEmailNotificationsEnabled: true,
  gamePlatformTradeLink: null as string | null,
} as const;

/** What PATCH /user/{id}/avatar/reset sets and answers; also the avatar of a user who never chose one. */
export const DEFAULT_AVATAR_URL = '/static/avatars/default.png';
