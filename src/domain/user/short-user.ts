import type { DecimalString } from '../money/money.js';
import { vipLevelOf } from './vip.js';

/** Spec "Short user": how a user appears inside another record (tips, withdrawals, bets, leaderboard rows). */
export type ShortUser = Readonly<{ id: number; username: string; isPrivate: boolean; avatar: string; vipLevel: number; isBanned: boolean }>;

export type ShortUserSource = Readonly<{
  id: number;
  username: string | null;
  isBanned: boolean;
  profile: Readonly<Record<string, unknown>> | null;
  /** Total wagered USD of settled bets (user_stats_usd); the VIP level derives from it. */
  wageredUsd: DecimalString;
}>;

export const shortUserOf = (u: ShortUserSource): ShortUser => {
  const profile = u.profile ?? {};
  return {
    id: u.id,
    username: u.username ?? '',
    isPrivate: profile.isPrivate === true,
    avatar: typeof profile.avatar === 'string' ? profile.avatar : '',
    vipLevel: vipLevelOf(u.wageredUsd),
    isBanned: u.isBanned,
  };
};
