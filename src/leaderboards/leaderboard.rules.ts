import { scaleOf, USD_SCALE, type CurrencyId } from '../domain/money/currency.js';
import { isParseError, parseDecimal, type Minor } from '../domain/money/money.js';

export const LEADERBOARD_TYPES = ['DAILY', 'WEEKLY', 'MONTHLY'] as const;
export type LeaderboardType = (typeof LEADERBOARD_TYPES)[number];
export const LEADERBOARD_STATUSES = ['NOT_STARTED', 'ACTIVE', 'ENDED', 'SETTLEMENT', 'FINISHED'] as const;
export type LeaderboardStatus = (typeof LEADERBOARD_STATUSES)[number];

/** The prize of a final position, in USD (8 decimals, minor units). */
export type Prize = Readonly<{ position: number; usdPrize: Minor }>;
export type Period = Readonly<{ start: Date; end: Date }>;

const DAY_MS = 86_400_000;

/** The UTC period containing `now`, end exclusive: a day, an ISO week from Monday 00:00, or a calendar month. */
export const periodOf = (type: LeaderboardType, now: Date): Period => {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  switch (type) {
    case 'DAILY':
      return { start: new Date(day), end: new Date(day + DAY_MS) };
    case 'WEEKLY': {
      const sinceMonday = (now.getUTCDay() + 6) % 7;
      const start = day - sinceMonday * DAY_MS;
      return { start: new Date(start), end: new Date(start + 7 * DAY_MS) };
    }
    case 'MONTHLY':
      return {
        start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
        end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
      };
  }
};

/** What the scheduler knows when it decides a leaderboard's next status. */
export type AdvanceFacts = Readonly<{
  status: LeaderboardStatus;
  startDate: Date;
  endDate: Date;
  now: Date;
  /** How long after endDate settlement waits, so that bets settled just before the end reach the bets read model. */
  settlementDelayMs: number;
  /** Every winner's remaining prize is 0 and no payment is in flight. */
  allPrizesPaid: boolean;
}>;

/** The leaderboard state machine: NOT_STARTED -> ACTIVE (at startDate) -> ENDED (at endDate) -> SETTLEMENT (endDate + delay; ranks and
 * prizes are assigned on entry) -> FINISHED (every winner paid). Returns the next status, or undefined when nothing may move yet. One step
 * per call; callers loop. */
export const nextStatus = (f: AdvanceFacts): LeaderboardStatus | undefined => {
  const now = f.now.getTime();
  switch (f.status) {
    case 'NOT_STARTED':
      return now >= f.startDate.getTime() ? 'ACTIVE' : undefined;
    case 'ACTIVE':
      return now >= f.endDate.getTime() ? 'ENDED' : undefined;
    case 'ENDED':
      return now >= f.endDate.getTime() + f.settlementDelayMs ? 'SETTLEMENT' : undefined;
    case 'SETTLEMENT':
      return f.allPrizesPaid ? 'FINISHED' : undefined;
    case 'FINISHED':
      return undefined;
  }
};

/** Give-prize is allowed only once prizes are assigned. */
export const prizesPayable = (status: LeaderboardStatus): boolean => status === 'SETTLEMENT' || status === 'FINISHED';

export type Wager = Readonly<{ userId: number; usdAmount: Minor }>;
export type Standing = Readonly<{ userId: number; usdAmount: Minor; position: number; usdPrize: Minor; isWinner: boolean }>;

/** Ranks by wagered USD, highest first; ties go to the lower user id so the order is total and repeatable. */
export const rank = (wagers: readonly Wager[], prizes: readonly Prize[]): Standing[] => {
  const byPosition = new Map(prizes.map((p) => [p.position, p.usdPrize]));
  return [...wagers]
    .filter((w) => w.usdAmount > 0n)
    .sort((a, b) => (a.usdAmount === b.usdAmount ? a.userId - b.userId : a.usdAmount > b.usdAmount ? -1 : 1))
    .map((w, i) => {
      const usdPrize = byPosition.get(i + 1) ?? 0n;
      return { ...w, position: i + 1, usdPrize, isWinner: usdPrize > 0n };
    });
};

/** USD (8 decimals, minor) to the currency's minor units at `rate` USD per unit, rounded DOWN: a prize is never paid above its USD value.
 * Undefined when the rate is zero or malformed. */
export const usdToCurrencyMinor = (currencyId: CurrencyId, usd: Minor, rate: string): Minor | undefined => {
  const rateDigits = (rate.split('.')[1] ?? '').length;
  const rateMinor = parseDecimal(rate, rateDigits);
  if (isParseError(rateMinor) || rateMinor <= 0n) return undefined;
  // amount = (usd / 10^8) / (rateMinor / 10^rateDigits), in units of 10^-scale.
  const numerator = usd * 10n ** BigInt(rateDigits + scaleOf(currencyId));
  const denominator = rateMinor * 10n ** BigInt(USD_SCALE);
  return numerator / denominator;
};
