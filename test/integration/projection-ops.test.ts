import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { isParseError, parseDecimal, type Minor } from '../../src/domain/money/money.js';
import { hasMovement } from '../../src/domain/wallet/wallet.events.js';
import { rebuildBlueGreen, withDependencies, type BlueGreenProjection } from '../../src/projections/blue-green.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { insertRows, userLegAmount, walletRecords, type Projection, type Row } from '../../src/projections/projection.js';
import { startProjector, type ProjectorLogger } from '../../src/projections/projection-runner.js';
import { projectionStatus } from '../../src/projections/projection-status.js';
import { transactionsProjection } from '../../src/read-models/transactions/transactions.projection.js';
import { walletBalancesProjection } from '../../src/read-models/wallet-balances/wallet-balances.projection.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { migrateEventStore } from '../../src/infra/event-store/postgres/postgres.migration.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { eventuallyTrue } from '../support/eventually.js';
import { createListsEnv, type ListsEnv } from '../support/lists-seed.js';
import { migrateNonCore } from '../../src/schema.js';
import { untilVisible } from '../support/audit-ledger.js';

/** DBC (scale 2) decimal string -> minor units; throws on anything else. */
const dbc = (amount: string): Minor => {
  const v = parseDecimal(amount, 2);
  if (isParseError(v)) throw new Error(`not a DBC amount: ${amount}`);
  return v;
};

const rowsOf = async (pool: pg.Pool, sql: string): Promise<unknown[]> => (await pool.query(sql)).rows;
const WALLET_BALANCES = 'SELECT * FROM wallet_balances ORDER BY user_id, currency_id';
const TRANSACTIONS = 'SELECT * FROM transactions ORDER BY position_commit, position_prepare';

/** Folds `projections` from the first event into a new, empty schema: what a correct read model must equal. */
const foldFromScratch = async (
  env: ListsEnv,
  projections: readonly Projection[],
  ddl: readonly string[] = [],
): Promise<{ db: TestDb; pool: pg.Pool }> => {
  const db = await createTestDb('pops_scratch', { ownCluster: true });
  const pool = db.pool();
  await migrateNonCore(pool);
  for (const statement of ddl) await pool.query(statement);
  // The per-person keys live beside the events: the scratch fold reads user events through them as the live one does.
  const keys = await env.env.pool.query<{ user_id: string; key: Buffer }>('SELECT user_id, key FROM person_keys');
  for (const k of keys.rows) await pool.query('INSERT INTO person_keys (user_id, key) VALUES ($1, $2)', [k.user_id, k.key]);
  const projector = startProjector({ store: env.env.store, pool, projections });
  await projector.waitFor(await untilVisible(env.env.store, env.env.pool));
  await projector.stop();
  return { db, pool };
};

/** A changed version of wallet-balances: also records the type of the event that last moved each balance. */
const walletBalancesV2: BlueGreenProjection = {
  ...walletBalancesProjection,
  version: 2,
  ddl: ['ALTER TABLE wallet_balances ADD COLUMN IF NOT EXISTS last_event_type text'],
  project(events) {
    const latest = new Map<string, Row>();
    for (const { userId, event } of walletRecords(events, walletBalancesProjection.handles)) {
      if (!hasMovement(event) || userLegAmount(userId, event) === undefined) continue;
      const d = event.data;
      latest.set(`${userId}/${d.currencyId}`, {
        user_id: userId,
        currency_id: d.currencyId,
        balance: d.balanceAfter,
        updated_at: d.at,
        last_event_type: event.type,
      });
    }
    return insertRows(
      'wallet_balances',
      [...latest.values()],
      'ON CONFLICT (user_id, currency_id) DO UPDATE SET balance = excluded.balance, updated_at = excluded.updated_at, last_event_type = excluded.last_event_type',
    );
  },
};
const nextRelease = allProjections.map((p) => (p.name === walletBalancesV2.name ? walletBalancesV2 : p));

const capturingLogger = (): ProjectorLogger & { messages: string[] } => {
  const messages: string[] = [];
  const push = (_obj: object, msg?: string): void => {
    messages.push(msg ?? '');
  };
  return { messages, info: push, warn: push, error: push };
};

describe('blue/green projection rebuilds', () => {
  let env: ListsEnv;
  let pool: pg.Pool;
  const scratch: TestDb[] = [];

  beforeAll(async () => {
    // A switch holds its transaction (an xid) while it waits for the live tables' locks: a cluster of the file's own.
    env = await createListsEnv('projection_ops', { ownCluster: true });
    pool = env.env.pool;
  });
  afterAll(async () => {
    await Promise.all(scratch.map((d) => d.drop()));
    await env?.close();
  });

  it('when wallet-balances and transactions are rebuilt under a load of commands and back-office queries, then no request fails, no answer goes backwards, and the switched-in tables equal a fold from scratch', async () => {
    // History: two users only ever credited (their balance can only grow), two who bet.
    const creditUsers = [await env.env.makeUser(), await env.env.makeUser()];
    const betUsers = [await env.env.makeUser(), await env.env.makeUser()];
    const possible = new Map<number, Set<bigint>>();
    const balance = new Map<number, bigint>();
    for (const u of creditUsers) {
      await env.deposit(u.id, '100');
      possible.set(u.id, new Set([dbc('100')]));
      balance.set(u.id, dbc('100'));
    }
    for (const u of betUsers) await env.deposit(u.id, '1000');
    let tipNo = 0;
    const credit = async (userId: number): Promise<void> => {
      tipNo += 1;
      const amount = `0.${String((tipNo % 99) + 1).padStart(2, '0')}`;
      const after = balance.get(userId)! + dbc(amount);
      possible.get(userId)!.add(after); // before the command: a reader may see it the moment it commits
      balance.set(userId, after);
      await env.tip(userId, amount, `load ${tipNo}`);
    };
    for (let i = 0; i < 250; i += 1) {
      await credit(creditUsers[i % 2]!.id);
      await env.bet(betUsers[i % 2]!.id, '1', { payout: i % 3 === 0 ? '2' : '0' });
    }
    await env.caughtUp();
    const indexesBefore = await rowsOf(
      pool,
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()
      AND tablename IN ('wallet_balances', 'transactions') ORDER BY indexname`,
    );

    // The load: one writer issuing commands, two readers asking the back office, until told to stop.
    let stopping = false;
    const failures: string[] = [];
    let commands = 0;
    let reads = 0;
    let readsAfterSwitch = 0;
    let switched = false;
    const writer = (async () => {
      for (let i = 0; !stopping; i += 1) {
        try {
          await credit(creditUsers[i % 2]!.id);
          await env.bet(betUsers[i % 2]!.id, '1', { payout: i % 4 === 0 ? '3' : '0' });
          commands += 2;
        } catch (error) {
          failures.push(`command: ${(error as Error).message}`);
        }
      }
    })();
    const reader = async (): Promise<void> => {
      // Per reader: only one reader's own requests are ordered (two readers' queries may take their snapshots in either order).
      const lastBalance = new Map<number, bigint>();
      const lastCount = new Map<number, number>();
      for (let i = 0; !stopping; i += 1) {
        const user = (i % 2 === 0 ? creditUsers : betUsers)[Math.floor(i / 2) % 2]!;
        const [record, txs] = await Promise.all([
          env.get(`/user/${user.id}`),
          env.post('/accounting/transactions', { where: { userId: user.id }, take: 5 }),
        ]);
        const afterSwitch = switched;
        reads += 2;
        if (afterSwitch) readsAfterSwitch += 2;
        if (record.status !== 200) failures.push(`GET /user/${user.id}: ${record.status} ${JSON.stringify(record.body)}`);
        if (txs.status !== 200) failures.push(`POST /accounting/transactions: ${txs.status} ${JSON.stringify(txs.body)}`);
        if (record.status !== 200 || txs.status !== 200) continue;
        const count = txs.body.total as number;
        if (count < (lastCount.get(user.id) ?? 0))
          failures.push(`user ${user.id}: transactions count went from ${lastCount.get(user.id)} to ${count}`);
        lastCount.set(user.id, Math.max(count, lastCount.get(user.id) ?? 0));
        for (const t of txs.body.data as { amount: string; beforeBalance: string; afterBalance: string }[]) {
          if (dbc(t.beforeBalance) + dbc(t.amount) !== dbc(t.afterBalance)) failures.push(`malformed transaction ${JSON.stringify(t)}`);
        }
        if (!possible.has(user.id)) continue;
        const dbcBalance = (record.body.usdBalance.currencies as { currencyId: string; balance: string }[]).find(
          (c) => c.currencyId === 'DBC',
        );
        if (!dbcBalance) {
          failures.push(`user ${user.id}: DBC balance disappeared`);
          continue;
        }
        const seen = dbc(dbcBalance.balance);
        if (!possible.get(user.id)!.has(seen)) failures.push(`user ${user.id}: balance ${dbcBalance.balance} was never the user's`);
        if (seen < (lastBalance.get(user.id) ?? 0n))
          failures.push(`user ${user.id}: balance went back from ${lastBalance.get(user.id)} to ${seen}`);
        lastBalance.set(user.id, seen > (lastBalance.get(user.id) ?? 0n) ? seen : lastBalance.get(user.id)!);
      }
    };
    const readers = [reader(), reader()];

    let duringRebuild: Awaited<ReturnType<typeof projectionStatus>> = [];
    let result: Awaited<ReturnType<typeof rebuildBlueGreen>>;
    try {
      await eventuallyTrue('the load to start', async () => reads >= 20 && commands >= 10);
      result = await rebuildBlueGreen({
        store: env.env.store,
        pool,
        projections: [walletBalancesProjection, transactionsProjection],
        batchSize: 50,
        beforeSwitch: async () => {
          duringRebuild = await projectionStatus({ pool, store: env.env.store, projections: allProjections });
        },
      });
      switched = true;
      await eventuallyTrue('queries after the switch', async () => readsAfterSwitch >= 40);
    } finally {
      stopping = true;
      await Promise.all([writer, ...readers]);
    }
    await env.caughtUp();
    console.log(
      `blue/green under load: ${commands} commands and ${reads} queries during the run (${readsAfterSwitch} after the switch); ` +
        `rebuild replayed ${result.events} events, switch took ${result.switchMs} ms with ${result.tail} events in it (attempt ${result.switchAttempts})`,
    );

    expect(failures).toEqual([]);
    expect(commands).toBeGreaterThan(0);
    // While it ran, status showed the rebuild of exactly these two projections.
    expect(duringRebuild.filter((s) => s.rebuild).map((s) => [s.name, s.rebuild!.alive, s.rebuild!.id])).toEqual([
      ['wallet-balances', true, result.id],
      ['transactions', true, result.id],
    ]);
    // The switched-in tables equal a fold from scratch, carry the migrations' index names, and the shadow is gone.
    const fold = await foldFromScratch(env, [walletBalancesProjection, transactionsProjection]);
    scratch.push(fold.db);
    expect(await rowsOf(pool, WALLET_BALANCES)).toEqual(await rowsOf(fold.pool, WALLET_BALANCES));
    expect(await rowsOf(pool, TRANSACTIONS)).toEqual(await rowsOf(fold.pool, TRANSACTIONS));
    for (const u of creditUsers)
      expect(
        dbc(
          (
            (await rowsOf(pool, `SELECT balance FROM wallet_balances WHERE user_id = ${u.id} AND currency_id = 'DBC'`)) as {
              balance: string;
            }[]
          )[0]!.balance,
        ),
      ).toBe(balance.get(u.id));
    expect(
      await rowsOf(
        pool,
        `SELECT indexname, replace(indexdef, current_schema(), 'S') AS indexdef FROM pg_indexes WHERE schemaname = current_schema()
      AND tablename IN ('wallet_balances', 'transactions') ORDER BY indexname`,
      ),
    ).toEqual(
      (indexesBefore as { indexname: string; indexdef: string }[]).map((i) => ({
        ...i,
        indexdef: i.indexdef.replace(env.env.db.schema, 'S'),
      })),
    );
    expect(await rowsOf(pool, `SELECT nspname FROM pg_namespace WHERE nspname = 'prb_${result.id}'`)).toEqual([]);
    expect(await rowsOf(pool, `SELECT state, events_applied::int AS n FROM projection_rebuilds WHERE id = '${result.id}'`)).toEqual([
      { state: 'switched', n: result.events },
    ]);
    // caughtUp() is the projector's own progress; a read model without an event in the last batches stores its checkpoint
    // a moment later (off the batch path), so the stored status is awaited, not read once.
    const behind = async () =>
      (await projectionStatus({ pool, store: env.env.store, projections: allProjections })).filter((s) => s.rebuild || s.lag.events > 0);
    await eventuallyTrue('every stored checkpoint at the head', async () => (await behind()).length === 0).catch(() => undefined);
    expect(await behind()).toEqual([]);
  }, 120_000); // 500 commands, then a load and a rebuild: the budget is for a loaded 2-core machine, not a timing assertion

  it('when a changed projection version is rebuilt, then projectors of that version wait for the switch instead of truncating, older projectors leave it alone afterwards, and the new tables equal a fold of the new version', async () => {
    const countBefore = Number(((await rowsOf(pool, 'SELECT count(*) AS n FROM wallet_balances')) as { n: string }[])[0]!.n);
    const nextLog = capturingLogger();
    let next: ReturnType<typeof startProjector> | undefined;
    const result = await rebuildBlueGreen({
      store: env.env.store,
      pool,
      projections: [walletBalancesV2],
      batchSize: 100,
      beforeSwitch: async () => {
        // The new release's projector starts while the rebuild runs: it must wait, not truncate the live table.
        next = startProjector({ store: env.env.store, pool, projections: nextRelease, logger: nextLog });
        await eventuallyTrue('the new release to wait for the switch', async () =>
          nextLog.messages.includes('projection: waiting for its blue/green rebuild to switch in'),
        );
        const user = await env.env.makeUser();
        await env.deposit(user.id, '5');
        await env.caughtUp();
        expect(Number(((await rowsOf(pool, 'SELECT count(*) AS n FROM wallet_balances')) as { n: string }[])[0]!.n)).toBe(countBefore + 1);
        expect(
          await rowsOf(
            pool,
            `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()
          AND table_name = 'wallet_balances' AND column_name = 'last_event_type'`,
          ),
        ).toEqual([]);
      },
    });
    expect(result.events).toBeGreaterThan(0);

    // After the switch: the new release applies version 2 (last_event_type filled) from the checkpoint on.
    const a = await env.env.makeUser();
    await env.deposit(a.id, '7');
    await eventuallyTrue(
      'the new release to project version 2',
      async () =>
        (await rowsOf(pool, `SELECT 1 FROM wallet_balances WHERE user_id = ${a.id} AND last_event_type = 'DepositCompleted'`)).length === 1,
    );
    expect(await rowsOf(pool, `SELECT version FROM projection_checkpoints WHERE name = 'wallet-balances'`)).toEqual([{ version: 2 }]);
    expect(await rowsOf(pool, 'SELECT count(*)::int AS n FROM wallet_balances WHERE last_event_type IS NULL')).toEqual([{ n: 0 }]);

    // With only the old release running, wallet-balances (now version 2) is left alone; the rest still moves.
    await next!.stop();
    const b = await env.env.makeUser();
    await env.deposit(b.id, '9');
    await env.caughtUp();
    expect(await rowsOf(pool, `SELECT count(*)::int AS n FROM transactions WHERE user_id = ${b.id}`)).toEqual([{ n: 1 }]);
    expect(await rowsOf(pool, `SELECT * FROM wallet_balances WHERE user_id = ${b.id}`)).toEqual([]);
    const [stale] = await projectionStatus({ pool, store: env.env.store, projections: [walletBalancesV2] });
    expect(stale!.lag.events).toBeGreaterThan(0);

    // The new release comes back and catches up; the result is the fold of version 2 from scratch.
    next = startProjector({ store: env.env.store, pool, projections: nextRelease });
    await next.waitFor(await untilVisible(env.env.store, env.env.pool));
    await next.stop();
    const fold = await foldFromScratch(env, [walletBalancesV2], walletBalancesV2.ddl);
    scratch.push(fold.db);
    expect(await rowsOf(pool, WALLET_BALANCES)).toEqual(await rowsOf(fold.pool, WALLET_BALANCES));
    expect(await rowsOf(pool, `SELECT * FROM wallet_balances WHERE user_id = ${b.id}`)).toHaveLength(1);
  });

  it("when a projection that reads other projections' tables is rebuilt alone, then it is refused; with its dependencies it is allowed", async () => {
    const commission = allProjections.find((p) => p.name === 'affiliate-commission')!;
    await expect(rebuildBlueGreen({ store: env.env.store, pool, projections: [commission] })).rejects.toThrow(/users, sign-up-effects/);
    expect(withDependencies(['affiliate-commission'], allProjections).map((p) => p.name)).toEqual([
      'users',
      'sign-up-effects',
      'affiliate-commission',
    ]);
    const group = withDependencies(['affiliate-commission'], allProjections);
    const result = await rebuildBlueGreen({ store: env.env.store, pool, projections: group, batchSize: 200 });
    expect(result.events).toBeGreaterThan(0);
    const fold = await foldFromScratch(env, group);
    scratch.push(fold.db);
    for (const table of group.flatMap((p) => p.tables)) {
      expect(await rowsOf(pool, `SELECT * FROM ${table} ORDER BY 1, 2`)).toEqual(
        await rowsOf(fold.pool, `SELECT * FROM ${table} ORDER BY 1, 2`),
      );
    }
  });

  it('when queries hold the live table past the lock timeout, then the switch backs off and retries until it gets the table', async () => {
    const blocker = await pool.connect();
    let released = false;
    try {
      const result = await rebuildBlueGreen({
        store: env.env.store,
        pool,
        projections: [transactionsProjection],
        switchLockTimeoutMs: 100,
        beforeSwitch: async () => {
          // A long read: ACCESS SHARE on transactions until it ends.
          await blocker.query('BEGIN');
          await blocker.query('SELECT count(*) FROM transactions');
          setTimeout(() => {
            void blocker.query('COMMIT').then(() => {
              released = true;
            });
          }, 600);
        },
      });
      expect(released).toBe(true);
      expect(result.switchAttempts).toBeGreaterThan(1);
      expect(await rowsOf(pool, `SELECT state FROM projection_rebuilds WHERE id = '${result.id}'`)).toEqual([{ state: 'switched' }]);
      const fold = await foldFromScratch(env, [transactionsProjection]);
      scratch.push(fold.db);
      expect(await rowsOf(pool, TRANSACTIONS)).toEqual(await rowsOf(fold.pool, TRANSACTIONS));
    } finally {
      blocker.release();
    }
  });

  it('when a rebuild fails before its switch, then its shadow is dropped and a projector that waited for it replays in place', async () => {
    const log = capturingLogger();
    let next: ReturnType<typeof startProjector> | undefined;
    const v3: BlueGreenProjection = { ...walletBalancesV2, version: 3 };
    const release3 = allProjections.map((p) => (p.name === v3.name ? v3 : p));
    let shadow = '';
    await expect(
      rebuildBlueGreen({
        store: env.env.store,
        pool,
        projections: [v3],
        beforeSwitch: async () => {
          next = startProjector({ store: env.env.store, pool, projections: release3, logger: log });
          await eventuallyTrue('the new release to wait', async () =>
            log.messages.includes('projection: waiting for its blue/green rebuild to switch in'),
          );
          shadow = (
            (await rowsOf(pool, `SELECT shadow_schema FROM projection_rebuilds WHERE state = 'running'`)) as { shadow_schema: string }[]
          )[0]!.shadow_schema;
          throw new Error('operator pulled the plug');
        },
      }),
    ).rejects.toThrow('operator pulled the plug');
    try {
      expect(await rowsOf(pool, `SELECT state, error FROM projection_rebuilds WHERE shadow_schema = '${shadow}'`)).toEqual([
        { state: 'failed', error: 'operator pulled the plug' },
      ]);
      expect(await rowsOf(pool, `SELECT 1 FROM pg_namespace WHERE nspname = '${shadow}'`)).toEqual([]);
      // The next event makes the waiting projector notice; it then replays version 3 in place.
      const user = await env.env.makeUser();
      await env.deposit(user.id, '3');
      await eventuallyTrue(
        'the in-place replay of version 3',
        async () =>
          (await rowsOf(pool, `SELECT 1 FROM projection_checkpoints WHERE name = 'wallet-balances' AND version = 3`)).length === 1 &&
          (await rowsOf(pool, `SELECT 1 FROM wallet_balances WHERE user_id = ${user.id}`)).length === 1,
      );
      await next!.waitFor(await untilVisible(env.env.store, env.env.pool));
      const fold = await foldFromScratch(env, [v3], v3.ddl);
      scratch.push(fold.db);
      expect(await rowsOf(pool, WALLET_BALANCES)).toEqual(await rowsOf(fold.pool, WALLET_BALANCES));
    } finally {
      await next?.stop();
    }
  });
});

describe('event order across a power of ten of transaction ids', () => {
  it('when the writing transaction ids gain a digit (10^k - 1, then 10^k + 2), then readAll and headPosition keep the numeric order the checkpoints rely on', async () => {
    const db = await createTestDb('pops_xid_order');
    try {
      const pool = db.pool();
      await migrateEventStore(pool);
      // Transaction ids set by hand (the column's default is the writer's xid). Readers only see ids below the oldest
      // running transaction, so the power of ten is the largest one this server has already passed (99 999 → 100 002
      // on a busy server, 9 999 → 10 002 on a fresh one).
      const xmin = BigInt((await pool.query<{ x: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS x')).rows[0]!.x);
      let power = 10n;
      while (power * 10n + 2n < xmin) power *= 10n;
      const [before, after] = [power - 1n, power + 2n];
      expect(after).toBeLessThan(xmin);
      await pool.query(
        `INSERT INTO events (transaction_id, stream_id, stream_revision, event_id, type, data)
        VALUES ($1::text::xid8, 's-1', 0, gen_random_uuid(), 'Noted', '{}'), ($2::text::xid8, 's-2', 0, gen_random_uuid(), 'Noted', '{}')`,
        [before.toString(), after.toString()],
      );
      const store = createPostgresEventStore({ pool });
      try {
        expect((await store.readAll()).map((e) => e.position.commit)).toEqual([before, after]);
        expect((await store.readAll({ maxCount: 1 })).map((e) => e.position.commit)).toEqual([before]);
        expect((await store.headPosition()).commit).toBe(after);
      } finally {
        await store.close();
      }
    } finally {
      await db.drop();
    }
  });
});
