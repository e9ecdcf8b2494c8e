import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { appendScripted, ledgerSchema, type LedgerSchema } from '../support/ledger-schema.js';
import type { EventStore, Position } from '../../src/infra/event-store/event-store.port.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { REPLAY_LOCK, withProjectionLock } from '../../src/projections/projection-locks.js';
import { startProjector } from '../../src/projections/projection-runner.js';
import { rebuildProjections } from '../../src/projections/rebuild.js';
import { countKeys, countsMismatches } from '../support/list-counts.js';
import { WalletScript } from '../unit/projections/wallet-fixtures.js';
import { RandomWallets, seeded } from '../unit/projections/random-wallets.js';

/** A rebuild replays without keeping the lists' counts and recounts them once at its end; these are the cases in between. */
describe('rebuild: the lists counts', () => {
  let env: LedgerSchema;
  let pool: pg.Pool;
  let store: EventStore;
  const seed = Number(process.env.REBUILD_SEED ?? Date.now() % 1_000_000);
  const wallets = new RandomWallets(new WalletScript(), seeded(seed), 6);

  beforeAll(async () => {
    env = await ledgerSchema('rebuild_counts');
    ({ pool, store } = env);
  });
  afterAll(async () => {
    await env?.close();
  });

  const appendSome = (count: number): Promise<Position> => appendScripted(store, wallets, count);
  const pending = async (): Promise<string[]> =>
    (await pool.query<{ name: string }>('SELECT name FROM projection_rederive_pending ORDER BY name')).rows.map((r) => r.name);

  /** What a rebuild that stopped before its recount leaves: rows replayed, counts not kept, marks set. */
  const interruptedReplay = async (head: Position): Promise<void> => {
    await withProjectionLock(pool, async (client) => {
      await client.query(`TRUNCATE ${allProjections.flatMap((p) => p.tables).join(', ')}`);
      await client.query('DELETE FROM projection_checkpoints');
    });
    const replay = startProjector({ store, pool, projections: allProjections, independent: false, replay: true, batchSize: 25 });
    await replay.waitFor(head);
    await replay.stop();
  };

  it('when a rebuild runs to its end, then every count equals a fresh count(*) and no mark is left', async () => {
    await appendSome(150);
    const result = await rebuildProjections({ store, pool, projections: allProjections, batchSize: 30 });
    expect(result.events).toBe(150);
    expect(await countsMismatches(pool), `seed ${seed}`).toEqual([]);
    expect(await countKeys(pool)).toBeGreaterThan(0);
    expect(await pending()).toEqual([]);
  });

  it('when a rebuild stops before its recount, then the next projector batch recounts the marked read models', async () => {
    const head = await appendSome(60);
    await interruptedReplay(head);
    // The replay skipped the counts: without the marks, the lists' totals would stay wrong.
    expect((await countsMismatches(pool)).length).toBeGreaterThan(0);
    expect(await pending()).toEqual(['admin-tips', 'bets', 'deposits', 'transactions', 'withdrawals']);

    const live = startProjector({ store, pool, projections: allProjections, batchSize: 50 });
    try {
      await live.waitFor(await appendSome(5));
    } finally {
      await live.stop();
    }
    expect(await countsMismatches(pool), `seed ${seed}`).toEqual([]);
    expect(await pending()).toEqual([]);
  });

  it('when a replay still holds its lock, then a projector leaves the counts to it', async () => {
    const head = await appendSome(40);
    await interruptedReplay(head);
    const marked = await pending();
    expect(marked.length).toBeGreaterThan(0);
    const holder = await pool.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${REPLAY_LOCK})`);
      const live = startProjector({ store, pool, projections: allProjections, batchSize: 50 });
      try {
        await live.waitFor(await appendSome(5));
      } finally {
        await live.stop();
      }
      expect(await pending()).toEqual(marked);
    } finally {
      await holder.query(`SELECT pg_advisory_unlock(${REPLAY_LOCK})`);
      holder.release();
    }
    const again = startProjector({ store, pool, projections: allProjections, batchSize: 50 });
    try {
      await again.waitFor(await appendSome(3));
    } finally {
      await again.stop();
    }
    expect(await countsMismatches(pool), `seed ${seed}`).toEqual([]);
    expect(await pending()).toEqual([]);
  });
});
