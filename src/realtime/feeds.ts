import { LIVE_BETS_ROOM, liveDropRoom } from '../shared/rooms.js';

export type FeedSettings = Readonly<{
  bigWinMinUsd: string;
  highRollerMinUsd: string;
  luckyWinMinMultiplier: string;
  luckyWinMinStakeUsd: string;
}>;

/** Same as config.feeds' defaults, so callers that pass nothing rank like production. */
export const DEFAULT_FEED_SETTINGS: FeedSettings = Object.freeze({
  bigWinMinUsd: '100',
  highRollerMinUsd: '100',
  luckyWinMinMultiplier: '10',
  luckyWinMinStakeUsd: '1',
});

export const FEED_MAX = 20;

export const FEED_EVENTS = ['LatestBets', 'BigWins', 'HighRollers', 'LuckyWins'] as const;
export type FeedEventName = (typeof FEED_EVENTS)[number];

/** A private user shows neither name, id nor avatar. */
export type PublicShortUser = Readonly<{
  id: number | null;
  username: string | null;
  isPrivate: boolean;
  avatar: string;
  vipLevel: number;
  isBanned: boolean;
}>;

export type RankableBet = Readonly<{
  amount: string;
  payout: string;
  usdAmount: string;
  usdPayout: string;
  gameIdentity: Readonly<{ slug: string }>;
}>;

export type FeedEvent<B> = Readonly<{ name: FeedEventName; room: string; payload: B[] }>;

type Scaled = Readonly<{ n: bigint; scale: number }>;
const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

export const scaled = (s: string): Scaled => {
  const m = DECIMAL.exec(s);
  if (!m) throw new Error(`not a decimal: ${s}`);
  const frac = m[3] ?? '';
  const n = BigInt(m[2]! + frac);
  return { n: m[1] ? -n : n, scale: frac.length };
};

const pow10 = (k: number): bigint => 10n ** BigInt(k);

export const compareDecimal = (a: string, b: string): number => {
  const x = scaled(a);
  const y = scaled(b);
  const l = x.n * pow10(y.scale);
  const r = y.n * pow10(x.scale);
  return l === r ? 0 : l < r ? -1 : 1;
};

/** Exact comparison of a/b and c/d (b, d > 0). */
const compareRatios = (a: string, b: string, c: string, d: string): number => {
  const [sa, sb, sc, sd] = [scaled(a), scaled(b), scaled(c), scaled(d)];
  const l = sa.n * sd.n * pow10(sb.scale + sc.scale);
  const r = sc.n * sb.n * pow10(sa.scale + sd.scale);
  return l === r ? 0 : l < r ? -1 : 1;
};

export const isBigWin = (bet: RankableBet, s: FeedSettings): boolean => compareDecimal(bet.usdPayout, s.bigWinMinUsd) >= 0;
export const isHighRoller = (bet: RankableBet, s: FeedSettings): boolean => compareDecimal(bet.usdAmount, s.highRollerMinUsd) >= 0;
export const isLuckyWin = (bet: RankableBet, s: FeedSettings): boolean =>
  scaled(bet.amount).n > 0n &&
  compareDecimal(bet.usdAmount, s.luckyWinMinStakeUsd) >= 0 &&
  compareRatios(bet.payout, bet.amount, s.luckyWinMinMultiplier, '1') >= 0;

type Indexed<B> = Readonly<{ bet: B; i: number }>;

/** Ties: newest (later in ledger order) first. */
const ranked = <B extends RankableBet>(bets: readonly Indexed<B>[], key: (a: B, b: B) => number, max: number): B[] =>
  [...bets]
    .sort((a, b) => key(b.bet, a.bet) || b.i - a.i)
    .slice(0, max)
    .map((x) => x.bet);

const newestFirst = <B>(bets: readonly Indexed<B>[], max: number): B[] =>
  [...bets]
    .reverse()
    .slice(0, max)
    .map((x) => x.bet);

/** A feed ranked by `rank` over the settled bets it `takes`. */
type RankedFeed = Readonly<{
  name: FeedEventName;
  takes: (bet: RankableBet, s: FeedSettings) => boolean;
  rank: (a: RankableBet, b: RankableBet) => number;
}>;

/** In the order they are sent. */
const RANKED_FEEDS: readonly RankedFeed[] = [
  { name: 'BigWins', takes: isBigWin, rank: (a, b) => compareDecimal(a.usdPayout, b.usdPayout) },
  { name: 'HighRollers', takes: isHighRoller, rank: (a, b) => compareDecimal(a.usdAmount, b.usdAmount) },
  { name: 'LuckyWins', takes: isLuckyWin, rank: (a, b) => compareRatios(a.payout, a.amount, b.payout, b.amount) },
];

/** Empty feeds give no event. */
export const feedEventsOf = <B extends RankableBet>(
  settled: readonly B[],
  settings: FeedSettings = DEFAULT_FEED_SETTINGS,
  max = FEED_MAX,
): FeedEvent<B>[] => {
  if (settled.length === 0) return [];
  const all = settled.map((bet, i) => ({ bet, i }));
  const out: FeedEvent<B>[] = [{ name: 'LatestBets', room: LIVE_BETS_ROOM, payload: newestFirst(all, max) }];
  for (const { name, takes, rank } of RANKED_FEEDS) {
    const taken = all.filter((x) => takes(x.bet, settings));
    const payload = ranked(taken, rank, max);
    if (payload.length > 0) out.push({ name, room: LIVE_BETS_ROOM, payload });
  }
  const bySlug = new Map<string, Indexed<B>[]>();
  for (const x of all) {
    const list = bySlug.get(x.bet.gameIdentity.slug) ?? [];
    list.push(x);
    bySlug.set(x.bet.gameIdentity.slug, list);
  }
  for (const [slug, list] of bySlug) out.push({ name: 'LatestBets', room: liveDropRoom(slug), payload: newestFirst(list, max) });
  return out;
};

/** Privacy by default: a private or not-yet-known user carries no id, name or avatar. */
export const publicBetOf = <B extends Readonly<{ userId: number | null }>>(
  bet: B,
  user: PublicShortUser | undefined,
): B & { user: PublicShortUser } => {
  if (!user || user.isPrivate) {
    return {
      ...bet,
      userId: null,
      user: { id: null, username: null, isPrivate: true, avatar: '', vipLevel: user?.vipLevel ?? 0, isBanned: user?.isBanned ?? false },
    };
  }
  return { ...bet, user };
};
