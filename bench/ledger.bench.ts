/**
 * npm run bench:ledger — wallet commands (place bet, settle) through the real command path,
 * next to two baselines measured in the same run on the same server:
 *   1. raw single-row INSERTs of an event-sized row from Node (same driver, same pool size);
 *   2. pgbench doing the same INSERT (the server's own limit).
 * The command path is measured alone first (no read model following), then with every read model following in-process,
 * then with them following in a process of their own (as docker-compose.yml deploys them).
 * Also projection lag: from a command's append to its effect being visible in the read models, per read model and
 * for all of them; each read model's cost per event; and "command acknowledged -> visible in a consistent read".
 * BENCH_LIMITS=compare measures only the command path with and without deposit and loss limits (bench/ledger/limits.ts).
 * Writes bench/results/ledger-<timestamp>.json. Not a test: nothing here asserts a timing.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import pg from 'pg';
import { migrateLedger } from '../src/commands/ledger.migration.js';
import { migrateEventStore } from '../src/infra/event-store/postgres/postgres.migration.js';
import { createPool } from '../src/infra/pg.js';
import { migrateAll, migrateNonCore } from '../src/schema.js';
import { measureBaselines } from './ledger/baselines.js';
import type { LedgerBench } from './ledger/context.js';
import { atAGlance, printAtAGlance } from './ledger/figures.js';
import { startLedger } from './ledger/pairs.js';
import { limitsCompared } from './ledger/limits.js';
import { rebuildEveryReadModel } from './ledger/rebuild.js';
import { commandPathAlone } from './ledger/row-alone.js';
import { followersApart } from './ledger/row-apart.js';
import { followersInProcess } from './ledger/row-in-process.js';
import { followersOnThread } from './ledger/row-thread.js';
import { DATABASE_URL, POOL_SIZE, SECONDS } from './ledger/settings.js';

const main = async (): Promise<void> => {
  const schema = `bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = createPool({ connectionString: DATABASE_URL, schema, max: POOL_SIZE });
  const keysPool = createPool({ connectionString: DATABASE_URL, schema, max: 2, synchronousCommit: false });
  const report: Record<string, unknown> = {
    at: new Date().toISOString(),
    database: DATABASE_URL.replace(/\/\/[^@]*@/, '//'),
    seconds: SECONDS,
    poolSize: POOL_SIZE,
  };
  const bench: LedgerBench = { schema, pool, keysPool, report, glance: [] };
  try {
    await migrateEventStore(pool);
    await migrateLedger(pool);
    await migrateNonCore(pool);
    // The bet guard reads the identity tables (user_access, user_limits).
    if (process.env.BENCH_LIMITS === 'compare') await migrateAll(pool);
    await pool.query(
      `CREATE TABLE raw_events (id bigserial PRIMARY KEY, stream_id text NOT NULL, type text NOT NULL, data jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
    );
    const baselines = await measureBaselines(bench);
    if (process.env.BENCH_LIMITS === 'compare') await limitsCompared(bench, baselines);
    else {
      const rig = await startLedger(bench, baselines);
      const aloneSpreads = await commandPathAlone(bench, baselines, rig);
      await followersInProcess(bench, baselines, rig, aloneSpreads);
      await followersApart(bench, rig);
      await followersOnThread(bench, rig);
      await rebuildEveryReadModel(bench, rig);
      report.atAGlance = atAGlance(bench.glance);
      printAtAGlance(report.atAGlance as ReturnType<typeof atAGlance>);
      await rig.store.close();
    }
  } finally {
    await pool.end();
    await keysPool.end();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
  await mkdir('bench/results', { recursive: true });
  const file = `bench/results/ledger-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log('report: %s', file);
};

await main();
