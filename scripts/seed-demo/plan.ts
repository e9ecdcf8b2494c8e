/**
 * The demo seed's plan: every random choice (users, sessions, amounts, outcomes and the time of each step) is made here,
 * before any concurrency, so the same seed and `now` always plan the same history. No database, no clock.
 */
import { USD_SCALE, type CurrencyId } from '../../src/domain/money/currency.js';
import type { Minor } from '../../src/domain/money/money.js';
import { ADMIN_TIP_TAGS, type BetStatus, type DepositStatus } from '../../src/domain/wallet/wallet.events.js';
import { usdToCurrencyMinor } from '../../src/leaderboards/leaderboard.rules.js';
import { ADJECTIVES, AGENTS, COUNTRIES, CURRENCIES, GAMES, NOUNS } from './vocabulary.js';

export const DAY = 86_400_000;
const HOUR = 3_600_000;
const SECOND = 1000;

export type Review = 'approve' | 'reject' | 'retry' | 'complete' | 'fail';
/**
 * `at`: the step's own time (its business time and recording time), a whole second no other step or sign-up uses; `then`:
 * the times of its provider's later steps (a deposit's confirmation and completion, a bet's settlement), as distinct.
 */
export type Op = Readonly<{ at: number; then: readonly number[] }> &
  (
    | Readonly<{ k: 'deposit'; n: number; amount: Minor; end: DepositStatus }>
    | Readonly<{ k: 'bet'; n: number; amount: Minor; payout: Minor; end: BetStatus; game: number }>
    | Readonly<{ k: 'withdraw'; n: number; amount: Minor }>
    | Readonly<{ k: 'review'; n: number; action: Review }>
    | Readonly<{ k: 'tip'; amount: Minor; deduct: boolean; admin: number; tag: (typeof ADMIN_TIP_TAGS)[number] }>
  );
type Step = Op extends infer O ? (O extends Op ? Omit<O, 'at' | 'then'> : never) : never;
export type Task = Readonly<{ at: number; user: number; ops: readonly Op[] }>;
export type PlanUser = Readonly<{
  username: string;
  country: string;
  currency: CurrencyId;
  registeredAt: number;
  marketing: boolean;
  ip: string;
  agent: string;
}>;
export type PlanOptions = Readonly<{
  users: number;
  days: number;
  seed: number;
  /** The latest time a step may have (the seed's start, less a margin): no business time lies after it. */
  now: number;
  /** USD rate of each currency (currency_rates). */
  rates: ReadonlyMap<string, string>;
}>;
export type Plan = Readonly<{
  start: number;
  users: readonly PlanUser[];
  tasks: readonly Task[];
  /** A second no sign-up or step uses, at or after `at` (before it when `now` is reached), for the seed's own rows. */
  claim: (at: number) => number;
}>;

/** mulberry32: small, fast and the same on every machine. */
const random = (seed: number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/**
 * History over the `days` whole UTC days before today and today up to `now`. Sign-ups grow towards today; a session is a
 * deposit when the balance runs low, bets, sometimes a withdrawal whose review follows hours later. One player in twenty
 * who signed up before today also plays today, so the current day (and its running leaderboards) has activity.
 */
export const planDemo = (o: PlanOptions): Plan => {
  const rng = random(o.seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
  const chance = (p: number) => rng() < p;
  const weighted = <T>(pairs: readonly (readonly [T, number])[]): T => {
    let r = rng() * pairs.reduce((s, [, w]) => s + w, 0);
    for (const [v, w] of pairs) if ((r -= w) < 0) return v;
    return pairs[0]![0];
  };
  const usd = (currency: CurrencyId, dollars: number) =>
    usdToCurrencyMinor(currency, BigInt(Math.round(dollars * 100)) * 10n ** BigInt(USD_SCALE - 2), o.rates.get(currency)!)!;
  const today = Math.floor(o.now / DAY) * DAY;
  const start = today - o.days * DAY;
  // Every sign-up and step gets a second of its own: the next free one, or the last free one before `now`.
  const taken = new Set<number>();
  const claim = (at: number): number => {
    let s = Math.floor(Math.min(at, o.now) / SECOND);
    while (taken.has(s)) s++;
    if (s * SECOND > o.now) for (s = Math.floor(o.now / SECOND); taken.has(s);) s--;
    taken.add(s);
    return s * SECOND;
  };
  /** Steps a few seconds to a minute apart from `at` on; a deposit confirms and completes minutes later, a bet settles in seconds. */
  const timed = (at: number, steps: readonly Step[]): Op[] => {
    let t = at;
    return steps.map((step, i) => {
      const first = claim(i === 0 ? t : t + int(5, 60) * SECOND);
      const confirmed = first + int(20, 300) * SECOND;
      const later =
        step.k === 'deposit' ? [confirmed, confirmed + int(30, 600) * SECOND] : step.k === 'bet' ? [first + int(1, 30) * SECOND] : [];
      const then = later.map(claim);
      t = Math.max(first, ...then); // the next step comes after this one's provider has finished
      return { ...step, at: first, then } as Op;
    });
  };
  const names = new Set<string>();
  const users: PlanUser[] = [];
  const tasks: Task[] = [];
  let n = 0;
  for (let u = 0; u < o.users; u++) {
    let username = '';
    do username = `${pick(ADJECTIVES)}${pick(NOUNS)}${int(1, 9999)}`;
    while (names.has(username.toLowerCase()));
    names.add(username.toLowerCase());
    const currency = weighted(CURRENCIES);
    // Growth: more sign-ups lately.
    const registeredAt = claim(start + Math.floor(Math.sqrt(rng()) * (o.days - 1) * DAY) + int(0, DAY - HOUR));
    users.push({
      username,
      country: weighted(COUNTRIES),
      currency,
      registeredAt,
      marketing: chance(0.4),
      ip: `10.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`,
      agent: pick(AGENTS),
    });
    const kind = weighted([
      ['casual', 67],
      ['regular', 30],
      ['whale', 3],
    ] as const);
    const [sessions, bets, dollars] =
      kind === 'casual'
        ? [int(1, 2), [1, 4], [20, 200]]
        : kind === 'regular'
          ? [int(2, 6), [2, 8], [50, 1000]]
          : [int(5, 12), [5, 15], [1000, 20000]];
    const times = Array.from({ length: sessions }, (_, i) =>
      i === 0 ? registeredAt + int(60_000, HOUR) : registeredAt + Math.floor(rng() * (o.now - registeredAt)),
    );
    if (u % 20 === 0 && registeredAt < today) times.push(today + Math.floor(rng() * (o.now - today)));
    times.sort((a, b) => a - b);
    let balance = 0n;
    let last = registeredAt;
    for (const at of times.filter((t) => t < o.now)) {
      const steps: Step[] = [];
      const minBet = usd(currency, 0.2);
      if (balance < minBet * 10n || chance(0.3)) {
        const amount = usd(currency, int(dollars[0]!, dollars[1]!));
        const end = weighted<DepositStatus>([
          ['COMPLETE', 93],
          ['FAILED', 4],
          ['PENDING', 2],
          ['CONFIRMED', 1],
        ]);
        steps.push({ k: 'deposit', n: n++, amount, end });
        if (end === 'COMPLETE') balance += amount;
      }
      // A stake is a small share of the balance, never more than a fifth of the player's largest deposit: balances and wins
      // stay in proportion to what was deposited (no compounding into millions).
      const maxStake = usd(currency, dollars[1]! / 5);
      for (let b = int(bets[0]!, bets[1]!); b > 0 && balance >= minBet; b--) {
        const share = (balance * BigInt(int(2, 10))) / 100n;
        const amount = share < maxStake ? share : maxStake;
        const end = weighted<BetStatus>([
          ['SETTLED', 95],
          ['ROLLBACK', 2],
          ['ERROR', 1],
          ['CREATED', 2],
        ]);
        // Payout multipliers (in hundredths) with a house edge: 0.55 × 0 + 0.33 × 1.55 + 0.10 × 3 + 0.02 × 7.5 ≈ 0.96 back per stake.
        const multiplier = weighted([
          [0, 55],
          [int(110, 200), 33],
          [int(200, 400), 10],
          [int(500, 1000), 2],
        ] as const);
        const payout = (amount * BigInt(multiplier)) / 100n;
        steps.push({ k: 'bet', n: n++, amount, payout, end, game: int(0, GAMES.length - 1) });
        balance += end === 'SETTLED' ? payout - amount : end === 'CREATED' ? -amount : 0n;
      }
      let reviews: { after: number; review: Step }[] = [];
      if (balance > usd(currency, 50) && chance(kind === 'whale' ? 0.4 : 0.15)) {
        const w = n++;
        const amount = (balance * BigInt(int(30, 80))) / 100n;
        balance -= amount;
        steps.push({ k: 'withdraw', n: w, amount });
        const fate = weighted<Review[]>([
          [[], 8],
          [['approve'], 6],
          [['approve', 'complete'], 60],
          [['reject'], 12],
          [['approve', 'fail'], 5],
          [['approve', 'fail', 'retry', 'complete'], 5],
          [['approve', 'fail', 'reject'], 4],
        ]);
        reviews = fate.map((action) => ({ after: int(HOUR / 2, 12 * HOUR), review: { k: 'review', n: w, action } }));
      }
      if (steps.length === 0) continue;
      const ops = timed(at, steps);
      tasks.push({ at: ops[0]!.at, user: u, ops });
      let t = ops[ops.length - 1]!.at;
      for (const { after, review } of reviews) {
        if ((t += after) >= o.now) break;
        const [op] = timed(t, [review]);
        tasks.push({ at: op!.at, user: u, ops: [op!] });
      }
      last = Math.max(last, t);
    }
    const tip = (at: number, step: Step) => {
      if (at >= o.now) return;
      const [op] = timed(at, [step]);
      tasks.push({ at: op!.at, user: u, ops: [op!] });
    };
    if (chance(0.06))
      tip(registeredAt + Math.floor(rng() * (o.now - registeredAt)), {
        k: 'tip',
        amount: usd(currency, int(5, 100)),
        deduct: false,
        admin: int(0, 1),
        tag: pick(ADMIN_TIP_TAGS),
      });
    if (balance > 0n && chance(0.02))
      tip(last + int(HOUR, 6 * HOUR), { k: 'tip', amount: balance / BigInt(int(4, 10)), deduct: true, admin: int(0, 1), tag: 'OTHER' });
  }
  tasks.sort((a, b) => a.at - b.at);
  return { start, users, tasks, claim };
};
