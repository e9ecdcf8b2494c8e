import { shortUserOf } from '../domain/user/short-user.js';
import { USD_SCALE } from '../domain/money/currency.js';
import { formatDecimal, isParseError, parseDecimal, type DecimalString, type Minor } from '../domain/money/money.js';
import type { LeaderboardStatus, LeaderboardType, Prize } from './leaderboard.rules.js';

/** A prize entry as the API shows and takes it (spec, Prize entry: usdPrize is a JSON number). */
export type PrizeEntry = Readonly<{ position: number; usdPrize: number }>;
export type ScheduleConfig = Readonly<{ type: LeaderboardType; name: string; description: string; prizes: readonly PrizeEntry[] }>;

export type ScheduleRow = Readonly<{
  id: string;
  type: LeaderboardType;
  enabled: boolean;
  name: string;
  description: string;
  prizes: PrizeEntry[];
  created_at: Date;
  updated_at: Date;
}>;
export type LeaderboardRow = Readonly<{
  id: string;
  schedule_id: string | null;
  type: LeaderboardType;
  status: LeaderboardStatus;
  name: string;
  description: string | null;
  config: ScheduleConfig;
  start_date: Date;
  end_date: Date;
  created_at: Date;
  updated_at: Date;
}>;
export type LeaderboardUserRow = Readonly<{
  id: string;
  leaderboard_id: string;
  user_id: string;
  position: number;
  usd_amount: string;
  usd_prize: string;
  remaining_usd_prize: string;
  is_winner: boolean;
  is_prize_received: boolean;
  created_at: Date;
  updated_at: Date;
  username: string | null;
  is_banned: boolean | null;
  profile: Record<string, unknown> | null;
  wagered: string | null;
}>;

/** numeric text from PostgreSQL to USD minor units (8 decimals). */
export const usdMinorOf = (numeric: string): Minor => {
  const v = parseDecimal(numeric, USD_SCALE);
  if (isParseError(v)) throw new Error(`invariant: USD figure "${numeric}" invalid: ${v.message}`);
  return v;
};
const usd = (numeric: string): DecimalString => formatDecimal(usdMinorOf(numeric), USD_SCALE);

/** A schedule prize (JSON number, at most 8 decimals by validation) in USD minor units. */
export const prizeOf = (entry: PrizeEntry): Prize => ({ position: entry.position, usdPrize: usdMinorOf(String(entry.usdPrize)) });

export const leaderboardView = (r: LeaderboardRow) => ({
  id: r.id,
  type: r.type,
  status: r.status,
  name: r.name,
  description: r.description,
  config: r.config,
  startDate: r.start_date.toISOString(),
  endDate: r.end_date.toISOString(),
  scheduleId: r.schedule_id,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});
export type LeaderboardView = ReturnType<typeof leaderboardView>;

export const scheduleView = (r: ScheduleRow, leaderboards: readonly LeaderboardView[]) => ({
  id: r.id,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  enabled: r.enabled,
  config: { type: r.type, name: r.name, description: r.description, prizes: r.prizes } satisfies ScheduleConfig,
  leaderboards,
});

export const leaderboardUserView = (r: LeaderboardUserRow) => ({
  id: r.id,
  leaderboardId: r.leaderboard_id,
  userId: Number(r.user_id),
  position: r.position,
  usdAmount: usd(r.usd_amount),
  usdPrize: usd(r.usd_prize),
  remainingUsdPrize: usd(r.remaining_usd_prize),
  isWinner: r.is_winner,
  isPrizeReceived: r.is_prize_received,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  user: shortUserOf({
    id: Number(r.user_id),
    username: r.username,
    isBanned: r.is_banned ?? false,
    profile: r.profile,
    wageredUsd: (r.wagered ?? '0') as DecimalString,
  }),
});
