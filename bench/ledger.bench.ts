/**
 * npm run bench:ledger — wallet commands (place bet, settle) through the real command path,
 * next to two baselines measured in the same run on the same server:
 *   1. raw single-row INSERTs of an event-sized row from Node (same driver, same pool size);
 *   2. pgbench doing the same INSERT (the server's own limit).
 * Also projection lag: from a command's append to its effect being visible in the read models.
 * Writes bench/results/ledger-<timestamp>.json. Not a test: nothing here asserts a timing.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isLeft } from 'fp-ts/lib/Either.js';
import pg from 'pg';
import { createLedger } from '../src/commands/ledger.js';
import { migrateLedger } from '../src/commands/ledger.migrations.js';
import { createPostgresEventStore } from '../src/infra/event-store/postgres/postgres.event-store.js';
import { migrateEventStore } from '../src/infra/event-store/postgres/postgres.migrations.js';
import { createPool } from '../src/infra/pg.js';
import { allProjections } from '../src/projections/index.js';
import { startProjector } from '../src/projections/projection-runner.js';
import { migrateReadModels } from '../src/projections/read-models.migrations.js';

const run = promisify(execFile);
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const LEVELS = (process.env.BENCH_CONCURRENCY ?? '1,16,64,256').split(',').map(Number);
const POOL_SIZE = Number(process.env.BENCH_POOL ?? 10);
const WALLETS = 2000;
const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } };
const EVENT_DATA = JSON.stringify({
  transactionId: 'bet_0123456789', currencyId: 'USDT', amount: '1.5', usdAmount: '1.5', betId: '0123456789', roundId: 'r-1', gameId: 7,
  gameIdentity: game, postings: [{ account: 'user:1', currencyId: 'USDT', amount: '-1.5' }, { account: 'house:bets', currencyId: 'USDT', amount: '1.5' }],
  balanceAfter: '98.5', at: new Date().toISOString(),
});

const percentile = (sorted: number[], p: number): number => sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

/** Runs `worker` on `concurrency` loops for `seconds`; returns ops/s and latency percentiles in ms. */
const drive = async (concurrency: number, seconds: number, worker: (client: number, i: number) => Promise<number>) => {
  const deadline = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let ops = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async (_, client) => {
    for (let i = 0; performance.now() < deadline; i += 1) {
      const t0 = performance.now();
      ops += await worker(client, i);
      latencies.push(performance.now() - t0);
    }
  }));
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return { concurrency, opsPerSec: round(ops / elapsed, 0), p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)) };
};

const main = async (): Promise<void> => {
  const schema = `bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = createPool({ connectionString: DATABASE_URL, schema, max: POOL_SIZE });
  const keysPool = createPool({ connectionString: DATABASE_URL, schema, max: 2, synchronousCommit: false });
  const report: Record<string, unknown> = { at: new Date().toISOString(), database: DATABASE_URL.replace(/\/\/[^@]*@/, '//'), seconds: SECONDS, poolSize: POOL_SIZE };
  try {
    await migrateEventStore(pool);
    await migrateLedger(pool);
    await migrateReadModels(pool);
    await pool.query(`CREATE TABLE raw_events (id bigserial PRIMARY KEY, stream_id text NOT NULL, type text NOT NULL, data jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);

    // Baseline 1: raw single-row INSERTs from Node, same driver and pool size.
    console.log('baseline: raw INSERT from Node (pg, pool of %d)', POOL_SIZE);
    const raw = [];
    for (const c of LEVELS) {
      const r = await drive(c, SECONDS, async (client, i) => {
        await pool.query('INSERT INTO raw_events (stream_id, type, data) VALUES ($1, $2, $3)', [`wallet-${client}`, 'BetPlaced', EVENT_DATA]);
        return i >= 0 ? 1 : 0;
      });
      raw.push(r);
      console.log('  c=%d  %d inserts/s  p50 %d ms  p99 %d ms', r.concurrency, r.opsPerSec, r.p50Ms, r.p99Ms);
    }
    report.rawInsertNode = raw;

    // Baseline 2: pgbench, the same INSERT, the server's own limit.
    const script = join(tmpdir(), `bench-insert-${process.pid}.sql`);
    await writeFile(script, `INSERT INTO ${schema}.raw_events (stream_id, type, data) VALUES ('wallet-1', 'BetPlaced', '${EVENT_DATA}');\n`);
    const pgbench = [];
    for (const c of [1, 16, 64].filter((x) => x <= 64)) {
      try {
        const { stdout } = await run('pgbench', ['-n', '-M', 'prepared', '-c', String(Math.min(c, 64)), '-j', '2', '-T', String(SECONDS), '-f', script, DATABASE_URL]);
        const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? 0);
        const lat = Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1] ?? 0);
        pgbench.push({ concurrency: c, opsPerSec: round(tps, 0), avgLatencyMs: lat });
        console.log('baseline: pgbench c=%d  %d inserts/s  avg %d ms', c, round(tps, 0), lat);
      } catch (error) {
        console.log('pgbench unavailable: %s', (error as Error).message.split('\n')[0]);
      }
    }
    report.pgbench = pgbench;

    // The ledger: place bet + settle through createLedger (validation, keys, decide, group commit).
    const store = createPostgresEventStore({ pool, pollIntervalMs: 100 });
    const ledger = createLedger({ store, pool, keysPool });
    const projector = startProjector({ store, pool, projections: allProjections });
    console.log('funding %d wallets...', WALLETS);
    for (let u = 1; u <= WALLETS; u += 100) {
      await Promise.all(Array.from({ length: 100 }, async (_, k) => {
        const d = await ledger.requestDeposit({ externalId: `fund-${u + k}`, userId: u + k, providerId: 'TEST', networkId: 'ETH', currencyId: 'USDT', amount: '1000000' });
        if (isLeft(d)) throw new Error(JSON.stringify(d.left));
        await ledger.completeDeposit(d.right.deposit.id, {});
      }));
    }
    await projector.waitFor(ledger.internals.handler.lastPosition());

    console.log('ledger: place bet + settle (2 commands per iteration)');
    const commands = [];
    const lag: number[] = [];
    let betSeq = 0;
    for (const c of LEVELS) {
      let sampling = 0;
      const r = await drive(c, SECONDS, async (client) => {
        const userId = 1 + ((client * 7919 + betSeq) % WALLETS);
        const id = `b${(betSeq += 1)}`;
        const placed = await ledger.placeBet({ id, userId, roundId: id, gameId: 7, gameIdentity: game, currencyId: 'USDT', amount: '1.5' });
        if (isLeft(placed)) throw new Error(JSON.stringify(placed.left));
        const settled = await ledger.settleBet(id, { payout: client % 2 === 0 ? '3' : '0' });
        if (isLeft(settled)) throw new Error(JSON.stringify(settled.left));
        if ((sampling += 1) % 25 === 0) {
          // Projection lag: from the append being acknowledged to the read model having applied it.
          const t0 = performance.now();
          void projector.waitFor(ledger.internals.handler.lastPosition()).then(() => lag.push(performance.now() - t0));
        }
        return 2;
      });
      // Per-command latency is half an iteration on average; report both.
      commands.push({ ...r, note: 'opsPerSec counts commands; p50/p99 are per place+settle pair' });
      console.log('  c=%d  %d commands/s  pair p50 %d ms  p99 %d ms', r.concurrency, r.opsPerSec, r.p50Ms, r.p99Ms);
    }
    await projector.waitFor(ledger.internals.handler.lastPosition());
    lag.sort((a, b) => a - b);
    report.ledgerCommands = commands;
    report.projectionLag = { samples: lag.length, p50Ms: round(percentile(lag, 50)), p99Ms: round(percentile(lag, 99)) };
    console.log('projection lag: p50 %d ms  p99 %d ms (%d samples)', round(percentile(lag, 50)), round(percentile(lag, 99)), lag.length);

    const bestRaw = Math.max(...raw.map((r) => r.opsPerSec));
    const bestLedger = Math.max(...commands.map((r) => r.opsPerSec));
    report.summary = { bestRawInsertsPerSec: bestRaw, bestLedgerCommandsPerSec: bestLedger, ratio: round(bestLedger / bestRaw) };
    console.log('summary: ledger %d commands/s = %d x raw Node inserts (%d/s)', bestLedger, round(bestLedger / bestRaw), bestRaw);
    await projector.stop();
    await store.close();
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
