import { isRight } from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFollowersThread, type FollowersThread } from '../../src/followers/followers.thread.js';
import { createLocalBus } from '../../src/infra/bus.js';
import { comparePositions, type Position } from '../../src/infra/event-store/event-store.port.js';
import { createLogger } from '../../src/infra/logger.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { eventually } from '../support/eventually.js';
import { recordBus } from '../support/realtime-ledger.js';

const READ_MODELS = allProjections.map((p) => p.name);
const logger = createLogger({ level: 'warn' });

describe('the followers on a worker thread, as the service runs them beside its APIs', () => {
  let env: AuthEnv;
  let thread: FollowersThread;
  let rec: Awaited<ReturnType<typeof recordBus>>;

  beforeAll(async () => {
    env = await createAuthEnv('followers_thread');
    const bus = createLocalBus();
    rec = await recordBus(bus);
    thread = await startFollowersThread({
      databaseUrl: env.db.connectionString,
      schema: env.db.schema,
      only: ['publisher', 'projector'],
      bus,
      logger,
      readModels: READ_MODELS,
    });
  });
  afterAll(async () => {
    await thread?.stop();
    await rec?.unsubscribe();
    await env?.close();
  });

  it('when an admin tips a user, then the read models show it as soon as the thread says so, and its server events reach this thread', async () => {
    const admin = await env.makeUser({ roles: ['Admin'], username: 'threadtipper' });
    const alice = await env.makeUser();
    const tip = await env.ledger.tip({ recipientUserId: alice.id, adminUserId: admin.id, currencyId: 'USDT', amount: '7.25', notes: 'n' });
    expect(isRight(tip)).toBe(true);
    // The tip's own position: the store's head stops below a transaction still open elsewhere in the cluster.
    const head = env.ledger.internals.handler.lastPosition();

    await thread.waitForModels(['admin-tips', 'wallet-balances'], head);
    expect(comparePositions(thread.progress('admin-tips')!, head)).toBeGreaterThanOrEqual(0);
    // No polling: the progress the thread reported is already committed.
    const tips = await env.pool.query<{ amount: string }>('SELECT amount::text FROM admin_tips WHERE recipient_user_id = $1', [alice.id]);
    expect(tips.rows).toEqual([{ amount: '7.25' }]);
    const balance = await env.pool.query<{ balance: string }>(
      "SELECT trim_scale(balance)::text AS balance FROM wallet_balances WHERE user_id = $1 AND currency_id = 'USDT'",
      [alice.id],
    );
    expect(balance.rows).toEqual([{ balance: '7.25' }]);

    await eventually(() =>
      expect(rec.forUser(alice.id, 'BalanceUpdated')).toMatchObject([
        { message: { payload: { currencyId: 'USDT', amount: '7.25', source: 'ADMIN_TIP' } } },
      ]),
    );
    expect(thread.follows('admin-tips')).toBe(true);
    expect(thread.follows('no-such-model')).toBe(false);
    await thread.waitForModels(['no-such-model'], { commit: 1n << 60n, prepare: 0n }); // as a projector: nothing to wait for
  });
});

/** Far longer than the test takes: an event applied early was hurried, not reached by the wait's end. */
const HOLD_MS = 8_000;

describe('a followers thread that holds new events back to batch them', () => {
  let env: AuthEnv;
  let thread: FollowersThread;
  beforeAll(async () => {
    env = await createAuthEnv('followers_thread_hurry');
    thread = await startFollowersThread({
      databaseUrl: env.db.connectionString,
      schema: env.db.schema,
      only: ['projector'],
      coalesceMs: HOLD_MS,
      bus: createLocalBus(),
      logger,
      readModels: READ_MODELS,
    });
  });
  afterAll(async () => {
    await thread?.stop();
    await env?.close();
  });

  it('when a read waits on a read model, then hurrying the thread does not wait for its coalescing', async () => {
    const bob = await env.makeUser();
    const admin = await env.makeUser({ roles: ['Admin'] });
    const tip = async (): Promise<Position> => {
      const given = await env.ledger.tip({ recipientUserId: bob.id, adminUserId: admin.id, currencyId: 'USDT', amount: '1', notes: 'n' });
      expect(isRight(given)).toBe(true);
      return env.ledger.internals.handler.lastPosition();
    };
    // The first events after a quiet spell are taken at once, and the next read starts a coalescing wait.
    await thread.waitForModels(['transactions'], await tip());
    await thread.waitForModels(['transactions'], await tip());
    const head = await tip();
    await new Promise((r) => setTimeout(r, 300));
    expect(comparePositions(thread.progress('transactions')!, head)).toBeLessThan(0);

    const since = performance.now();
    thread.hurry();
    await thread.waitForModels(['transactions'], head);
    expect(performance.now() - since).toBeLessThan(HOLD_MS / 2);
    const rows = await env.pool.query('SELECT 1 FROM transactions WHERE user_id = $1', [bob.id]);
    expect(rows.rowCount).toBe(3);
  });
});

describe('a followers thread that cannot start', () => {
  it('when the sealer has no key, then the start is refused with the reason', async () => {
    const env = await createAuthEnv('followers_thread_refused');
    try {
      await expect(
        startFollowersThread({
          databaseUrl: env.db.connectionString,
          schema: env.db.schema,
          only: ['sealer'],
          bus: createLocalBus(),
          logger,
          readModels: [],
        }),
      ).rejects.toThrow(/the sealer needs its key/);
    } finally {
      await env.close();
    }
  });

  it('when it is stopped, then waits still pending end with an error instead of hanging', async () => {
    const env = await createAuthEnv('followers_thread_stop');
    try {
      const thread = await startFollowersThread({
        databaseUrl: env.db.connectionString,
        schema: env.db.schema,
        only: ['projector'],
        bus: createLocalBus(),
        logger,
        readModels: READ_MODELS,
      });
      const never = expect(thread.waitForModels(['transactions'], { commit: 1n << 60n, prepare: 0n })).rejects.toThrow(/stopped/);
      await thread.stop();
      await never;
      await expect(thread.waitForModels(['transactions'], { commit: 0n, prepare: 0n })).rejects.toThrow(/stopped/);
    } finally {
      await env.close();
    }
  });
});
