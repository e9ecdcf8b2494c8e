import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { TestDb } from '../support/db.js';
import { appendScripted, ledgerSchema, type LedgerSchema } from '../support/ledger-schema.js';
import type { EventStore, Position } from '../../src/infra/event-store/event-store.port.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import type { Projection, Sql } from '../../src/projections/projection.js';
import { startProjector } from '../../src/projections/projection-runner.js';
import { rebuildProjections } from '../../src/projections/rebuild.js';
import { countKeys, countsMismatches } from '../support/list-counts.js';
import { WalletScript } from '../unit/projections/wallet-fixtures.js';
import { RandomWallets, seeded } from '../unit/projections/random-wallets.js';

const TABLES = allProjections.flatMap((p) => p.tables);
const dump = async (pool: pg.Pool): Promise<Record<string, unknown[]>> => {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) out[t] = (await pool.query(`SELECT * FROM ${t} ORDER BY 1, 2, ${t}::text`)).rows;
  return out;
};

const DIVIDE_BY_ZERO: Sql = { text: 'SELECT 1 / 0', values: [] };
const KILL_OWN_CONNECTION: Sql = { text: 'SELECT pg_terminate_backend(pg_backend_pid())', values: [] };

/**
 * Wraps every projection (same names and checkpoints) so that a chosen call, and now and then a random
 * one, gets a failing statement spliced in at a random point among its statements: the batch's
 * transaction dies after some of its statements ran (by error, or by the server killing the connection).
 */
const chaos = (rng: () => number, triggerAt: number) => {
  let calls = 0;
  const wrap = (p: Projection): Projection => ({
    ...p,
    project(events) {
      const statements = [...p.project(events)];
      calls += 1;
      if (calls === triggerAt || rng() < 0.03) {
        statements.splice(Math.floor(rng() * (statements.length + 1)), 0, rng() < 0.5 ? DIVIDE_BY_ZERO : KILL_OWN_CONNECTION);
      }
      return statements;
    },
  });
  return allProjections.map(wrap);
};

describe('projector crashes', () => {
  let env: LedgerSchema;
  let db: TestDb;
  let pool: pg.Pool;
  let store: EventStore;
  const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
  const rng = seeded(seed);
  const w = new WalletScript();
  const wallets = new RandomWallets(w, rng, 6);
  let appended = 0;

  beforeAll(async () => {
    env = await ledgerSchema('projector_crash', { ownCluster: true }); // it kills projectors' backends mid-transaction
    ({ db, pool, store } = env);
  });
  afterAll(async () => {
    await env?.close();
  });

  const appendSome = async (count: number): Promise<Position> => {
    appended += count;
    return appendScripted(store, wallets, count);
  };

  it('when the projector is killed mid-batch many times and restarted, then the read models equal a rebuild from zero', async () => {
    const projectorPool = db.pool({ applicationName: 'projector-chaos' });
    projectorPool.on('error', () => undefined); // idle clients killed from outside
    const killer = db.pool({ max: 1 });
    let failures = 0;
    let head = await appendSome(40);
    let cycles = 0;
    // At least 30 restarts, and at least 30 batches that died part-way (a cycle may be stopped before its failure fires).
    for (; cycles < 30 || failures < 30; cycles += 1) {
      if (cycles > 300) throw new Error(`only ${failures} failures in ${cycles} cycles (seed ${seed})`);
      const projector = startProjector({
        store,
        pool: projectorPool,
        projections: chaos(rng, 1 + Math.floor(rng() * 6)),
        batchSize: 1 + Math.floor(rng() * 12),
        retryDelayMs: 2,
        maxRetryDelayMs: 20,
        onFailure: () => {
          failures += 1;
        },
      });
      const appending = appendSome(5 + Math.floor(rng() * 15));
      if (rng() < 0.25) {
        await new Promise((r) => setTimeout(r, Math.floor(rng() * 30)));
        await killer.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'projector-chaos' AND pid <> pg_backend_pid()`,
        );
      }
      head = await appending;
      if (rng() < 0.3)
        await new Promise((r) => setTimeout(r, Math.floor(rng() * 40))); // abort wherever it is
      else await projector.waitFor(head);
      await projector.stop();
    }
    expect(failures).toBeGreaterThanOrEqual(30);
    expect(cycles).toBeGreaterThanOrEqual(30);

    const clean = startProjector({ store, pool, projections: allProjections, batchSize: 50 });
    await clean.waitFor(head);
    await clean.stop();
    const live = await dump(pool);

    // Independent check: the balances equal the fixture's fold of the same events.
    for (const row of live.wallet_balances as { user_id: string; currency_id: 'BTC'; balance: string }[]) {
      expect(row.balance, `seed ${seed}`).toBe(w.balance(Number(row.user_id), row.currency_id));
    }
    const { rows: sums } = await pool.query(`SELECT currency_id, sum(balance) = 0 AS zero FROM account_balances GROUP BY 1`);
    expect(sums.every((r: { zero: boolean }) => r.zero)).toBe(true);

    const result = await rebuildProjections({ store, pool, projections: allProjections, batchSize: 97 });
    expect(result.events).toBe(appended);
    expect(await dump(pool), `seed ${seed}`).toEqual(live);
    // The lists' counts survived the crashes and the rebuild equal to a fresh count(*).
    expect(await countsMismatches(pool), `seed ${seed}`).toEqual([]);
    expect(await countKeys(pool)).toBeGreaterThan(0);
  }, 120_000);
});
