/**
 * npm run seed:demo — fills a fresh database with demo data through the real command side (users,
 * ledger, leaderboard scheduler and give-prize), then lets the projector fill the read models.
 * DATABASE_URL is required; SEED_USERS (3000), SEED_DAYS (60) and SEED (42) shape the data, and the same
 * seed and start time give the same users, amounts, outcomes and times (ids may differ); the plan is in seed-demo/plan.ts.
 * History runs over the SEED_DAYS days before today 00:00 UTC and today up to a minute before the start. Each sign-up and
 * step runs at its own second: the clocks read it, and ledger steps state it as their business time (effectiveAt).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import cliProgress from 'cli-progress';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import { hashPassword } from '../src/auth/passwords.js';
import { createLedger } from '../src/commands/ledger.js';
import { createUsers } from '../src/commands/users.js';
import { fromMinor } from '../src/domain/money/money.js';
import type { Permission, Role } from '../src/domain/user/permissions.js';
import { createPostgresEventStore } from '../src/infra/event-store/postgres/postgres.event-store.js';
import { createPool } from '../src/infra/pg.js';
import { createPrizes } from '../src/leaderboards/leaderboard.prizes.js';
import { runLeaderboardTick } from '../src/leaderboards/leaderboard.scheduler.js';
import { allProjections } from '../src/read-models/all-projections.js';
import { startProjector } from '../src/projections/index.js';
import { migrateAll } from '../src/schema.js';
import { DAY, planDemo, type Task } from './seed-demo/plan.js';
import { GAMES, NETWORK } from './seed-demo/vocabulary.js';

const USERS = Number(process.env.SEED_USERS || 3000);
const DAYS = Number(process.env.SEED_DAYS || 60);
const SEED = Number(process.env.SEED || 42);
const CONCURRENCY = 32;
const PASSWORD = 'demo password 2026';
// Steps end a minute before the seed starts, so no business time lies in the future of the ledger's own clock.
const NOW = Date.now() - 60_000;
const END = Math.floor(NOW / DAY) * DAY;
const START = END - DAYS * DAY;
/** The time of the step being run: the users' and ledger's clocks read it, so each row is recorded at its own time. */
const stepTime = new AsyncLocalStorage<number>();

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
  // Outside a step (staff, leaderboard ticks and prizes) the clocks read `ledgerNow`.
  let ledgerNow = START;
  const clock = () => new Date(stepTime.getStore() ?? ledgerNow);
  const users = createUsers({ store, pool: db, clock });
  const ledger = createLedger({
    store,
    pool: db,
    keysPool,
    userExists: users.exists,
    canTransact: users.canTransact,
    clock,
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
  const { users: people, tasks, claim } = planDemo({ users: USERS, days: DAYS, seed: SEED, now: NOW, rates });
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
    ledgerNow = claim(START);
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
      const r = await stepTime.run(p.registeredAt, () =>
        users.register({
          email: `${p.username.toLowerCase()}@demo.test`,
          username: p.username,
          passwordHash,
          country: p.country,
          referrerCode: null,
          marketingOptIn: p.marketing,
          provider: 'password',
          roles: ['User'],
          registration: { ip: p.ip, userAgent: p.agent, country: p.country, referrer: null },
        }),
      );
      if (isLeft(r)) throw new Error(`cannot register ${p.username}: ${r.left._tag}`);
      ids[i] = r.right.userId;
    },
    signUp.b,
  );
  signUp.done();

  // Wallet history in time order; one user's tasks run one after another (reviews need the withdrawal's id).
  const withdrawals = new Map<number, string>();
  const locks = new Map<number, Promise<void>>();
  /** Runs `f` at `time`: recorded then by the ledger's clock and stated as its business time (effectiveAt). */
  const at = <T>(time: number, f: (b: { effectiveAt: string }) => Promise<T>): Promise<T> =>
    stepTime.run(time, () => f({ effectiveAt: new Date(time).toISOString() }));
  const run = async (t: Task) => {
    const userId = ids[t.user]!;
    const currencyId = people[t.user]!.currency;
    const networkId = NETWORK[currencyId]!;
    for (const op of t.ops) {
      if (op.k === 'deposit') {
        const d = await at(op.at, (b) =>
          ok(
            ledger.requestDeposit({
              ...b,
              externalId: `demo-${SEED}-${op.n}`,
              userId,
              providerId: op.n % 3 === 0 ? 'COINSPAID' : 'NOWPAYMENTS',
              networkId,
              currencyId,
              amount: fromMinor(currencyId, op.amount),
              payAddress: `addr-${userId}`,
            }),
          ),
        );
        const id = d?.deposit.id;
        if (!id || op.end === 'PENDING') continue;
        if (op.end === 'FAILED') {
          await at(op.then[0]!, (b) => ok(ledger.failDeposit(id, { ...b, reason: 'provider reported an underpayment' })));
          continue;
        }
        await at(op.then[0]!, (b) => ok(ledger.confirmDeposit(id, { ...b, txHash: `0x${op.n.toString(16).padStart(16, '0')}` })));
        if (op.end === 'COMPLETE') await at(op.then[1]!, (b) => ok(ledger.completeDeposit(id, b)));
      } else if (op.k === 'bet') {
        const [name, slug, type, provider] = GAMES[op.game]!;
        const id = `demo-${SEED}-bet-${op.n}`;
        const placed = await at(op.at, (b) =>
          ok(
            ledger.placeBet({
              ...b,
              id,
              userId,
              roundId: `round-${op.n}`,
              gameId: op.game + 1,
              gameIdentity: { name, slug, type, provider: { name: provider } },
              currencyId,
              amount: fromMinor(currencyId, op.amount),
            }),
          ),
        );
        if (!placed) continue;
        const settled = op.then[0]!;
        if (op.end === 'SETTLED') await at(settled, (b) => ok(ledger.settleBet(id, { ...b, payout: fromMinor(currencyId, op.payout) })));
        if (op.end === 'ROLLBACK') await at(settled, (b) => ok(ledger.rollbackBet(id, b)));
        if (op.end === 'ERROR') await at(settled, (b) => ok(ledger.errorBet(id, { ...b, errorDetails: 'provider timeout' })));
      } else if (op.k === 'withdraw') {
        const w = await at(op.at, () =>
          ok(
            ledger.requestWithdrawal({
              userId,
              currencyId,
              networkId,
              providerId: 'NOWPAYMENTS',
              amount: fromMinor(currencyId, op.amount),
              recipientAddress: `wallet-${SEED}-${op.n}`,
              operationKey: `demo-${SEED}-wd-${op.n}`,
            }),
          ),
        );
        if (w) withdrawals.set(op.n, w.withdrawal.id);
      } else if (op.k === 'review') {
        const id = withdrawals.get(op.n);
        if (!id) continue;
        const admin = admins[0];
        const txHash = `0xw${op.n.toString(16).padStart(15, '0')}`;
        await at(op.at, async (b) => {
          if (op.action === 'approve') await ok(ledger.approveWithdrawal(id, admin));
          if (op.action === 'reject') await ok(ledger.rejectWithdrawal(id, admin, 'address failed the compliance check'));
          if (op.action === 'retry') await ok(ledger.retryWithdrawal(id, admin));
          if (op.action === 'complete') await ok(ledger.completeWithdrawal(id, { ...b, txHash }));
          if (op.action === 'fail') await ok(ledger.failWithdrawal(id, { ...b, failedReason: 'provider rejected the transfer' }));
        });
      } else {
        const input = {
          recipientUserId: userId,
          adminUserId: op.admin === 0 ? superAdmin : admins[1],
          currencyId,
          amount: fromMinor(currencyId, op.amount),
          tag: op.tag,
          notes: op.deduct ? 'bonus abuse correction' : 'thanks for playing',
        };
        await at(op.at, () => ok(op.deduct ? ledger.deductBalance(input) : ledger.tip(input)));
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
        // Each payment at a second of its own, a little after the tick.
        const paid = () => claim(now.getTime() + 1000);
        if (r.position === 2)
          await stepTime.run(paid(), () =>
            ok(
              prizes.give({
                adminUserId: admins[1],
                leaderboardId: id,
                userId,
                currency,
                usdAmount: '10',
                idempotencyKey: `demo-${id}-part`,
              }),
            ),
          );
        await stepTime.run(paid(), () =>
          ok(
            prizes.give({
              adminUserId: admins[1],
              leaderboardId: id,
              userId,
              currency,
              fullUsdAmount: true,
              idempotencyKey: `demo-${id}-full`,
            }),
          ),
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
  const upTo = `${new Date(NOW).toISOString().slice(0, 16)}Z`;
  console.log(`\nseeded in ${((Date.now() - started) / 1000).toFixed(1)} s (SEED=${SEED}, ${DAYS} days and today up to ${upTo})`);
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
