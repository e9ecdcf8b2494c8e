/**
 * npm run seed:demo — fills a fresh database with demo data through the real command side (users,
 * ledger, leaderboard scheduler and give-prize), then lets the projector fill the read models.
 * DATABASE_URL is required; SEED_USERS (3000), SEED_DAYS (60) and SEED (42) shape the data, and the same
 * seed gives the same users, amounts and outcomes (ids and exact timestamps may differ a little).
 * History runs over the SEED_DAYS days before today 00:00 UTC; the ledger clock is moved along with it.
 */
import cliProgress from 'cli-progress';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import { hashPassword } from '../src/auth/passwords.js';
import { createLedger } from '../src/commands/ledger.js';
import { createUsers } from '../src/commands/users.js';
import { USD_SCALE, type CurrencyId } from '../src/domain/money/currency.js';
import { fromMinor, type Minor } from '../src/domain/money/money.js';
import type { Permission, Role } from '../src/domain/user/permissions.js';
import { ADMIN_TIP_TAGS, type BetStatus, type DepositStatus } from '../src/domain/wallet/wallet.events.js';
import { createPostgresEventStore } from '../src/infra/event-store/postgres/postgres.event-store.js';
import { createPool } from '../src/infra/pg.js';
import { createPrizes } from '../src/leaderboards/leaderboard.prizes.js';
import { usdToCurrencyMinor } from '../src/leaderboards/leaderboard.rules.js';
import { runLeaderboardTick } from '../src/leaderboards/leaderboard.scheduler.js';
import { allProjections } from '../src/read-models/all-projections.js';
import { startProjector } from '../src/projections/index.js';
import { migrateAll } from '../src/schema.js';

const USERS = Number(process.env.SEED_USERS || 3000);
const DAYS = Number(process.env.SEED_DAYS || 60);
const SEED = Number(process.env.SEED || 42);
const CONCURRENCY = 32;
const PASSWORD = 'demo password 2026';
const DAY = 86_400_000;
const HOUR = 3_600_000;
const END = Math.floor(Date.now() / DAY) * DAY;
const START = END - DAYS * DAY;

/** mulberry32: small, fast and the same on every machine. */
const rng = (() => {
  let a = SEED >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
})();
const int = (lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
const chance = (p: number) => rng() < p;
const weighted = <T>(pairs: readonly (readonly [T, number])[]): T => {
  let r = rng() * pairs.reduce((s, [, w]) => s + w, 0);
  for (const [v, w] of pairs) if ((r -= w) < 0) return v;
  return pairs[0]![0];
};

const CURRENCIES: readonly (readonly [CurrencyId, number])[] = [
  ['USDT', 35],
  ['BTC', 20],
  ['ETH', 15],
  ['DBC', 10],
  ['LTC', 8],
  ['SOL', 7],
  ['TRX', 5],
];
const NETWORK: Partial<Record<CurrencyId, string>> = {
  USDT: 'TRC20',
  BTC: 'BTC',
  ETH: 'ERC20',
  DBC: 'BSC',
  LTC: 'LTC',
  SOL: 'SOL',
  TRX: 'TRX',
};
const COUNTRIES: readonly (readonly [string, number])[] = [
  ['DE', 14],
  ['BR', 12],
  ['CA', 10],
  ['GB', 9],
  ['TR', 8],
  ['IN', 8],
  ['AU', 6],
  ['MX', 6],
  ['PL', 5],
  ['JP', 5],
  ['AR', 4],
  ['SE', 3],
  ['NZ', 3],
  ['FI', 3],
  ['NO', 2],
  ['CL', 2],
];
const ADJECTIVES = [
  'Lucky',
  'Wild',
  'Golden',
  'Silent',
  'Rapid',
  'Brave',
  'Crazy',
  'Frosty',
  'Neon',
  'Cosmic',
  'Royal',
  'Shadow',
  'Salty',
  'Happy',
  'Iron',
  'Mighty',
];
const NOUNS = [
  'Fox',
  'Whale',
  'Tiger',
  'Ace',
  'Shark',
  'Wolf',
  'Dragon',
  'Joker',
  'Panda',
  'Falcon',
  'Viking',
  'Rider',
  'Ninja',
  'Comet',
  'Raven',
  'King',
];
const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) Safari/605.1',
  'Mozilla/5.0 (Linux; Android 14) Chrome/130.0',
];
const GAMES = [
  ['Sweet Bonanza', 'sweet-bonanza', 'slots', 'Pragmatic Play'],
  ['Gates of Olympus', 'gates-of-olympus', 'slots', 'Pragmatic Play'],
  ['Book of Dead', 'book-of-dead', 'slots', "Play'n GO"],
  ['Crazy Time', 'crazy-time', 'live', 'Evolution'],
  ['Lightning Roulette', 'lightning-roulette', 'live', 'Evolution'],
  ['Dice', 'dice', 'originals', 'House'],
  ['Crash', 'crash', 'originals', 'House'],
  ['Plinko', 'plinko', 'originals', 'House'],
  ['Wanted Dead or a Wild', 'wanted-dead-or-a-wild', 'slots', 'Hacksaw Gaming'],
  ['Big Bass Splash', 'big-bass-splash', 'slots', 'Pragmatic Play'],
  ['Blackjack VIP', 'blackjack-vip', 'live', 'Evolution'],
] as const;

type Review = 'approve' | 'reject' | 'retry' | 'complete' | 'fail';
type Op =
  | Readonly<{ k: 'deposit'; n: number; amount: Minor; end: DepositStatus }>
  | Readonly<{ k: 'bet'; n: number; amount: Minor; payout: Minor; end: BetStatus; game: number }>
  | Readonly<{ k: 'withdraw'; n: number; amount: Minor }>
  | Readonly<{ k: 'review'; n: number; action: Review }>
  | Readonly<{ k: 'tip'; amount: Minor; deduct: boolean; admin: number; tag: (typeof ADMIN_TIP_TAGS)[number] }>;
type Task = { at: number; user: number; ops: Op[] };
type PlanUser = Readonly<{
  username: string;
  country: string;
  currency: CurrencyId;
  registeredAt: number;
  marketing: boolean;
  ip: string;
  agent: string;
}>;

/** Everything random is decided here, before any concurrency, so a seed always plans the same history. */
const plan = (rates: ReadonlyMap<string, string>) => {
  const usd = (currency: CurrencyId, dollars: number) =>
    usdToCurrencyMinor(currency, BigInt(Math.round(dollars * 100)) * 10n ** BigInt(USD_SCALE - 2), rates.get(currency)!)!;
  const names = new Set<string>();
  const users: PlanUser[] = [];
  const tasks: Task[] = [];
  let n = 0;
  for (let u = 0; u < USERS; u++) {
    let username = '';
    do username = `${pick(ADJECTIVES)}${pick(NOUNS)}${int(1, 9999)}`;
    while (names.has(username.toLowerCase()));
    names.add(username.toLowerCase());
    const currency = weighted(CURRENCIES);
    const registeredAt = START + Math.floor(Math.sqrt(rng()) * (DAYS - 1) * DAY) + int(0, DAY - HOUR); // growth: more sign-ups lately
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
      i === 0 ? registeredAt + int(60_000, HOUR) : registeredAt + Math.floor(rng() * (END - registeredAt)),
    ).sort((a, b) => a - b);
    let balance = 0n;
    let last = registeredAt;
    for (const at of times.filter((t) => t < END)) {
      const ops: Op[] = [];
      const minBet = usd(currency, 0.2);
      if (balance < minBet * 10n || chance(0.3)) {
        const amount = usd(currency, int(dollars[0]!, dollars[1]!));
        const end = weighted<DepositStatus>([
          ['COMPLETE', 93],
          ['FAILED', 4],
          ['PENDING', 2],
          ['CONFIRMED', 1],
        ]);
        ops.push({ k: 'deposit', n: n++, amount, end });
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
        ops.push({ k: 'bet', n: n++, amount, payout, end, game: int(0, GAMES.length - 1) });
        balance += end === 'SETTLED' ? payout - amount : end === 'CREATED' ? -amount : 0n;
      }
      tasks.push({ at, user: u, ops });
      if (balance > usd(currency, 50) && chance(kind === 'whale' ? 0.4 : 0.15)) {
        const w = n++;
        const amount = (balance * BigInt(int(30, 80))) / 100n;
        balance -= amount;
        ops.push({ k: 'withdraw', n: w, amount });
        const fate = weighted<Review[]>([
          [[], 8],
          [['approve'], 6],
          [['approve', 'complete'], 60],
          [['reject'], 12],
          [['approve', 'fail'], 5],
          [['approve', 'fail', 'retry', 'complete'], 5],
          [['approve', 'fail', 'reject'], 4],
        ]);
        let t = at;
        for (const action of fate) tasks.push({ at: (t += int(HOUR / 2, 12 * HOUR)), user: u, ops: [{ k: 'review', n: w, action }] });
      }
      last = Math.max(last, at);
    }
    if (chance(0.06))
      tasks.push({
        at: registeredAt + Math.floor(rng() * (END - registeredAt)),
        user: u,
        ops: [{ k: 'tip', amount: usd(currency, int(5, 100)), deduct: false, admin: int(0, 1), tag: pick(ADMIN_TIP_TAGS) }],
      });
    if (balance > 0n && chance(0.02))
      tasks.push({
        at: last + int(HOUR, 6 * HOUR),
        user: u,
        ops: [{ k: 'tip', amount: balance / BigInt(int(4, 10)), deduct: true, admin: int(0, 1), tag: 'OTHER' }],
      });
  }
  tasks.sort((a, b) => a.at - b.at);
  return { users, tasks: tasks.filter((t) => t.at < END && t.ops.length > 0) };
};

const bar = (name: string, total: number) => {
  const b = new cliProgress.SingleBar(
    { format: `${name.padEnd(13)} [{bar}] {value}/{total} | {duration_formatted}`, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  b.start(total, 0);
  const started = Date.now();
  return {
    b,
    done: () => {
      b.stop();
      console.log(`${name}: ${total} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
  };
};

/** Runs `work` over `items` in order with CONCURRENCY at a time. */
const pool32 = async <T>(items: readonly T[], work: (t: T) => Promise<void>, progress: cliProgress.SingleBar) => {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        await work(items[next++]!);
        progress.increment();
      }
    }),
  );
};

const main = async (): Promise<void> => {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL is not set: point it at an empty PostgreSQL database.');
    process.exitCode = 2;
    return;
  }
  const started = Date.now();
  const db = createPool({ connectionString: url, max: 20, applicationName: 'seed-demo' });
  const keysPool = createPool({ connectionString: url, max: 4, synchronousCommit: false, applicationName: 'seed-demo:keys' });
  await migrateAll(db);
  if (Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n) > 0) {
    console.error('the database already holds events: seed:demo fills a fresh database only.');
    process.exitCode = 2;
    await Promise.all([db.end(), keysPool.end()]);
    return;
  }
  const store = createPostgresEventStore({ pool: db });
  let userNow = START;
  let ledgerNow = START;
  const users = createUsers({ store, pool: db, clock: () => new Date(userNow) });
  const ledger = createLedger({
    store,
    pool: db,
    keysPool,
    userExists: users.exists,
    canTransact: users.canTransact,
    clock: () => new Date(ledgerNow),
  });
  let projected = 0;
  const projector = startProjector({
    store,
    pool: db,
    projections: allProjections,
    independent: false,
    onBatch: ({ events }) => {
      projected += events;
    },
    onFailure: (error) => console.error(`projector: ${(error as Error).message} (retrying)`),
  });
  const rates = new Map(
    (await db.query<{ currency_id: string; usd_rate: string }>('SELECT currency_id, usd_rate::text FROM currency_rates')).rows.map((r) => [
      r.currency_id,
      r.usd_rate,
    ]),
  );
  const { users: people, tasks } = plan(rates);
  const refused = new Map<string, number>();
  const ok = async <T>(result: Promise<Either<{ _tag: string }, T>>): Promise<T | undefined> => {
    const r = await result;
    if (!isLeft(r)) return r.right;
    refused.set(r.left._tag, (refused.get(r.left._tag) ?? 0) + 1);
    return undefined;
  };

  // Staff first: a SuperAdmin, a payments admin and a support admin.
  const passwordHash = await hashPassword(PASSWORD);
  const staff = async (username: string, roles: Role[], permissions: Permission[], by: number | null) => {
    const r = await users.register({
      email: `${username.toLowerCase()}@demo.test`,
      username,
      passwordHash,
      country: 'MT',
      referrerCode: null,
      marketingOptIn: false,
      provider: 'password',
      roles,
      registration: { ip: null, userAgent: null, country: 'MT', referrer: null },
    });
    if (isLeft(r)) throw new Error(`cannot create ${username}: ${r.left._tag}`);
    for (const permission of permissions) await users.execute(r.right.userId, { type: 'GrantPermission', data: { permission } }, by);
    return r.right.userId;
  };
  const superAdmin = await staff('SuperAdmin', ['User', 'SuperAdmin'], [], null);
  const admins = [
    await staff(
      'PaymentsAdmin',
      ['User', 'Admin'],
      [
        'user.view',
        'deposits.view',
        'withdrawals.view',
        'withdrawals.approve',
        'withdrawals.reject',
        'withdrawals.retry',
        'transaction.view',
      ],
      superAdmin,
    ),
    await staff(
      'SupportAdmin',
      ['User', 'Admin'],
      [
        'user.view',
        'admin-tips.view',
        'admin-tips.tip',
        'admin-tips.deduct-balance',
        'leaderboard.view',
        'leaderboard.edit',
        'leaderboard.give-prize',
      ],
      superAdmin,
    ),
  ] as const;

  const ids: number[] = [];
  const signUp = bar('users', people.length);
  const order = people.map((p, i) => ({ p, i })).sort((a, b) => a.p.registeredAt - b.p.registeredAt);
  await pool32(
    order,
    async ({ p, i }) => {
      userNow = Math.max(userNow, p.registeredAt);
      const r = await users.register({
        email: `${p.username.toLowerCase()}@demo.test`,
        username: p.username,
        passwordHash,
        country: p.country,
        referrerCode: null,
        marketingOptIn: p.marketing,
        provider: 'password',
        roles: ['User'],
        registration: { ip: p.ip, userAgent: p.agent, country: p.country, referrer: null },
      });
      if (isLeft(r)) throw new Error(`cannot register ${p.username}: ${r.left._tag}`);
      ids[i] = r.right.userId;
    },
    signUp.b,
  );
  signUp.done();

  // Wallet history in time order; one user's tasks run one after another (reviews need the withdrawal's id).
  const withdrawals = new Map<number, string>();
  const locks = new Map<number, Promise<void>>();
  const run = async (t: Task) => {
    ledgerNow = Math.max(ledgerNow, t.at);
    const userId = ids[t.user]!;
    const currencyId = people[t.user]!.currency;
    const networkId = NETWORK[currencyId]!;
    for (const op of t.ops) {
      if (op.k === 'deposit') {
        const d = await ok(
          ledger.requestDeposit({
            externalId: `demo-${SEED}-${op.n}`,
            userId,
            providerId: op.n % 3 === 0 ? 'COINSPAID' : 'NOWPAYMENTS',
            networkId,
            currencyId,
            amount: fromMinor(currencyId, op.amount),
            payAddress: `addr-${userId}`,
          }),
        );
        const id = d?.deposit.id;
        if (!id || op.end === 'PENDING') continue;
        if (op.end === 'FAILED') {
          await ok(ledger.failDeposit(id, { reason: 'provider reported an underpayment' }));
          continue;
        }
        await ok(ledger.confirmDeposit(id, { txHash: `0x${op.n.toString(16).padStart(16, '0')}` }));
        if (op.end === 'COMPLETE') await ok(ledger.completeDeposit(id, {}));
      } else if (op.k === 'bet') {
        const [name, slug, type, provider] = GAMES[op.game]!;
        const id = `demo-${SEED}-bet-${op.n}`;
        const placed = await ok(
          ledger.placeBet({
            id,
            userId,
            roundId: `round-${op.n}`,
            gameId: op.game + 1,
            gameIdentity: { name, slug, type, provider: { name: provider } },
            currencyId,
            amount: fromMinor(currencyId, op.amount),
          }),
        );
        if (!placed) continue;
        if (op.end === 'SETTLED') await ok(ledger.settleBet(id, { payout: fromMinor(currencyId, op.payout) }));
        if (op.end === 'ROLLBACK') await ok(ledger.rollbackBet(id));
        if (op.end === 'ERROR') await ok(ledger.errorBet(id, { errorDetails: 'provider timeout' }));
      } else if (op.k === 'withdraw') {
        const w = await ok(
          ledger.requestWithdrawal({
            userId,
            currencyId,
            networkId,
            providerId: 'NOWPAYMENTS',
            amount: fromMinor(currencyId, op.amount),
            recipientAddress: `wallet-${SEED}-${op.n}`,
            operationKey: `demo-${SEED}-wd-${op.n}`,
          }),
        );
        if (w) withdrawals.set(op.n, w.withdrawal.id);
      } else if (op.k === 'review') {
        const id = withdrawals.get(op.n);
        if (!id) continue;
        const admin = admins[0];
        if (op.action === 'approve') await ok(ledger.approveWithdrawal(id, admin));
        if (op.action === 'reject') await ok(ledger.rejectWithdrawal(id, admin, 'address failed the compliance check'));
        if (op.action === 'retry') await ok(ledger.retryWithdrawal(id, admin));
        if (op.action === 'complete') await ok(ledger.completeWithdrawal(id, { txHash: `0xw${op.n.toString(16).padStart(15, '0')}` }));
        if (op.action === 'fail') await ok(ledger.failWithdrawal(id, { failedReason: 'provider rejected the transfer' }));
      } else {
        const input = {
          recipientUserId: userId,
          adminUserId: op.admin === 0 ? superAdmin : admins[1],
          currencyId,
          amount: fromMinor(currencyId, op.amount),
          tag: op.tag,
          notes: op.deduct ? 'bonus abuse correction' : 'thanks for playing',
        };
        await ok(op.deduct ? ledger.deductBalance(input) : ledger.tip(input));
      }
    }
  };
  const history = bar('wallets', tasks.length);
  await pool32(
    tasks,
    async (t) => {
      const mine = (locks.get(t.user) ?? Promise.resolve()).then(() => run(t));
      locks.set(
        t.user,
        mine.catch(() => undefined),
      );
      await mine;
    },
    history.b,
  );
  history.done();

  const catchUp = async (name: string) => {
    const total = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n);
    const p = bar(name, total);
    const timer = setInterval(() => p.b.update(Math.min(projected, total)), 200);
    // Not store.headPosition(): that stops at the oldest open transaction of the whole cluster, and ours are all committed.
    const {
      rows: [last],
    } = await db.query<{ t: string; g: string }>(
      'SELECT transaction_id::text AS t, global_position AS g FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1',
    );
    if (last) await projector.waitFor({ commit: BigInt(last.t), prepare: BigInt(last.g) });
    clearInterval(timer);
    p.b.update(total);
    p.done();
  };
  await catchUp('projector');

  // Leaderboards: a scheduler tick a few minutes into every simulated day; older boards get all prizes paid.
  await db.query('UPDATE leaderboard_schedules SET enabled = true, updated_at = now()');
  const prizes = createPrizes({ pool: db, ledger });
  const currencyOf = new Map(ids.map((id, i) => [id, people[i]!.currency]));
  const boards = bar('leaderboards', DAYS + 1);
  for (let day = START; day <= END; day += DAY) {
    const now = day === END ? new Date() : new Date(day + 5 * 60_000);
    ledgerNow = now.getTime();
    const tick = await runLeaderboardTick({ pool: db, ledger, now, settlementDelayMs: 60_000 });
    for (const { id } of tick.transitions.filter((x) => x.to === 'SETTLEMENT')) {
      const { rows } = await db.query<{ user_id: string; position: number; end_date: Date }>(
        'SELECT lu.user_id, lu.position, l.end_date FROM leaderboard_users lu JOIN leaderboards l ON l.id = lu.leaderboard_id WHERE l.id = $1 AND lu.is_winner ORDER BY lu.position',
        [id],
      );
      const old = rows[0] !== undefined && rows[0].end_date.getTime() < END - 3 * DAY;
      for (const r of rows.filter((x) => old || x.position === 1)) {
        const userId = Number(r.user_id);
        const currency = currencyOf.get(userId) ?? 'USDT';
        if (r.position === 2)
          await ok(
            prizes.give({
              adminUserId: admins[1],
              leaderboardId: id,
              userId,
              currency,
              usdAmount: '10',
              idempotencyKey: `demo-${id}-part`,
            }),
          );
        await ok(
          prizes.give({
            adminUserId: admins[1],
            leaderboardId: id,
            userId,
            currency,
            fullUsdAmount: true,
            idempotencyKey: `demo-${id}-full`,
          }),
        );
      }
    }
    boards.b.increment();
  }
  // One more pass so boards whose prizes were all paid on the last day move to FINISHED.
  await runLeaderboardTick({ pool: db, ledger, now: new Date(), settlementDelayMs: 60_000 });
  boards.done();
  await catchUp('read models');
  await projector.stop();

  const count = async (sql: string) => (await db.query<{ k: string; n: string }>(sql)).rows.map((r) => `${r.k} ${r.n}`).join(', ');
  const byStatus = (table: string, column = 'status') => count(`SELECT ${column} AS k, count(*) AS n FROM ${table} GROUP BY 1 ORDER BY 1`);
  console.log(
    `\nseeded in ${((Date.now() - started) / 1000).toFixed(1)} s (SEED=${SEED}, ${DAYS} days up to ${new Date(END).toISOString().slice(0, 10)})`,
  );
  console.log(`users:        ${await count(`SELECT 'total' AS k, count(*) AS n FROM users`)}`);
  console.log(`bets:         ${await byStatus('bets')}`);
  console.log(`deposits:     ${await byStatus('deposits')}`);
  console.log(`withdrawals:  ${await byStatus('withdrawals')}`);
  console.log(`admin tips:   ${await byStatus('admin_tips', 'type')}`);
  console.log(`transactions: ${await count(`SELECT 'total' AS k, count(*) AS n FROM transactions`)}`);
  console.log(`leaderboards: ${await byStatus('leaderboards')}`);
  console.log(`prizes:       ${await byStatus('leaderboard_prize_payments')}`);
  if (refused.size > 0) console.log(`refused:      ${[...refused].map(([k, n]) => `${k} ${n}`).join(', ')}`);
  console.log(
    `sign in as superadmin@demo.test, paymentsadmin@demo.test or supportadmin@demo.test (any user: <username>@demo.test), password "${PASSWORD}"`,
  );
  await store.close();
  await Promise.all([db.end(), keysPool.end()]);
};

await main();
