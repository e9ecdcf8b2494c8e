import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { comparePositions } from '../../src/infra/event-store/event-store.port.js';
import { createNotifier } from '../../src/infra/event-store/postgres/postgres.wake-up.js';
import { createWakeSignal } from '../../src/infra/follow/wake-signal.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { startProjector } from '../../src/projections/projection-runner.js';
import { createReadModelWaiter } from '../../src/projections/read-model-waiter.js';
import { eventuallyTrue } from '../support/eventually.js';
import { appendScripted, ledgerSchema, type LedgerSchema } from '../support/ledger-schema.js';
import { RandomWallets, seeded } from '../unit/projections/random-wallets.js';
import { WalletScript } from '../unit/projections/wallet-fixtures.js';

/** Far longer than any step below takes, so an event applied early was hurried, not reached by the wait's end. */
const COALESCE_MS = 8_000;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('read models coalesce new events until a reader waits on them', () => {
  let schema: LedgerSchema;
  let wallets: RandomWallets;
  beforeAll(async () => {
    schema = await ledgerSchema('read_model_hurry');
    wallets = new RandomWallets(new WalletScript(), seeded(7), 4);
  });
  afterAll(() => schema?.close());

  /**
   * A projector in a process of its own (its own pool), listening on `channel`, with three events it holds back.
   * The first event it gets shows its shared read has started; the next comes through that read and starts a coalescing
   * wait, so the three appended after it wait for its end: nothing else wakes it once the LISTEN is up.
   */
  const projectorHolding = async (channel: string) => {
    const pool = schema.db.pool();
    const hurry = createWakeSignal();
    const listening = createNotifier({ pool, channel, signal: hurry });
    listening.acquire();
    // Listening wakes the signal once (what was sent before is lost); after that only a reader's NOTIFY wakes it.
    await eventuallyTrue('the projector listening for readers', () => hurry.generation() > 0);
    const projector = startProjector({ store: schema.store, pool, projections: allProjections, coalesceMs: COALESCE_MS, hurry });
    const stop = async () => {
      await projector.stop();
      await listening.close();
      await pool.end();
    };
    try {
      await projector.waitFor(await appendScripted(schema.store, wallets, 1));
      await projector.waitFor(await appendScripted(schema.store, wallets, 1));
      const since = performance.now();
      const at = await appendScripted(schema.store, wallets, 3);
      await pause(300);
      expect(comparePositions(projector.progress('wallet-balances')!, at)).toBeLessThan(0);
      return { projector, at, since, stop };
    } catch (error) {
      await stop();
      throw error;
    }
  };

  it('when a reader in another process waits, then its NOTIFY ends the wait and the read is consistent at once', async () => {
    const channel = 'read_models_wanted_test_1';
    const { at, since, stop } = await projectorHolding(channel);
    const readerPool = schema.db.pool();
    const asking = createNotifier({ pool: readerPool, channel, signal: createWakeSignal() });
    try {
      const waiter = createReadModelWaiter({ pool: readerPool, store: schema.store, askOthers: asking.announce });
      const reached = await waiter.reach(['wallet-balances', 'transactions'], at, COALESCE_MS);
      expect(reached.stale).toBe(false);
      expect(performance.now() - since).toBeLessThan(COALESCE_MS / 2);
    } finally {
      await asking.close();
      await readerPool.end();
      await stop();
    }
  });

  it('when a reader in the same process waits, then the projector is hurried without a round trip', async () => {
    const { projector, at, since, stop } = await projectorHolding('read_models_wanted_test_2');
    try {
      const waiter = createReadModelWaiter({ pool: schema.pool, store: schema.store, local: projector });
      const reached = await waiter.reach(['bets'], at, COALESCE_MS);
      expect(reached.stale).toBe(false);
      expect(performance.now() - since).toBeLessThan(COALESCE_MS / 2);
    } finally {
      await stop();
    }
  });
});
