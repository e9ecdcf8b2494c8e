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
      const done = await worker(client, i); // not `ops += await ...`: that reads ops before awaiting
      ops += done;
      latencies.push(performance.now() - t0);
    }
  }));
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return { concurrency, opsPerSec: round(ops / elapsed, 0), p50Ms: round(percentile(latencies, 50), 3), p99Ms: round(percentile(latencies, 99), 3) };
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
      console.log('  c=%d  %d inserts/s  p50 %s ms  p99 %s ms', r.concurrency, r.opsPerSec, r.p50Ms, r.p99Ms);
    }
    report.rawInsertNode = raw;

    // Baseline 2: pgbench, the same INSERT, the server's own limit.
    const script = join(tmpdir(), `bench-insert-${process.pid}.sql`);
    // The event JSON goes in as a bound variable: pgbench would read its "...:45..." as variable names.
    await writeFile(script, `INSERT INTO ${schema}.raw_events (stream_id, type, data) VALUES ('wallet-1', 'BetPlaced', :data);\n`);
    const pgbench = [];
    for (const c of [1, 16, 64].filter((x) => x <= 64)) {
      try {
        const { stdout } = await run('pgbench', ['-n', '-M', 'prepared', '-D', `data=${EVENT_DATA}`, '-c', String(Math.min(c, 64)), '-j', String(Math.min(2, c)), '-T', String(SECONDS), '-f', script, DATABASE_URL]);
        const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? 0);
        const lat = Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1] ?? 0);
        pgbench.push({ concurrency: c, opsPerSec: round(tps, 0), avgLatencyMs: lat });
        console.log('baseline: pgbench c=%d  %d inserts/s  avg %d ms', c, round(tps, 0), lat);
      } catch (error) {
        console.log('pgbench failed: %s', String((error as { stderr?: string }).stderr ?? error).split('\n').slice(0, 3).join(' '));
      }
    }
    report.pgbench = pgbench;

    // The ledger: place bet + settle through createLedger (validation, keys, decide, group commit).
    const store = createPostgresEventStore({ pool, pollIntervalMs: 100 });
    const ledger = createLedger({ store, pool, keysPool });
    const batches: number[] = [];
    const batchTimes: number[] = [];
    const projector = startProjector({ store, pool, projections: allProjections, onBatch: ({ events }) => { batches.push(events); batchTimes.push(performance.now()); } });
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
    const perCommand: { concurrency: number; placeP50Ms: number; settleP50Ms: number; rawInsertP50Ms: number | undefined }[] = [];
    const lag: number[] = [];
    let betSeq = 0;
    for (const c of LEVELS) {
      let sampling = 0;
      const placeMs: number[] = [];
      const settleMs: number[] = [];
      const r = await drive(c, SECONDS, async (client) => {
        const userId = 1 + ((client * 7919 + betSeq) % WALLETS);
        const id = `b${(betSeq += 1)}`;
        const t0 = performance.now();
        const placed = await ledger.placeBet({ id, userId, roundId: id, gameId: 7, gameIdentity: game, currencyId: 'USDT', amount: '1.5' });
        if (isLeft(placed)) throw new Error(JSON.stringify(placed.left));
        const t1 = performance.now();
        const settled = await ledger.settleBet(id, { payout: client % 2 === 0 ? '3' : '0' });
        if (isLeft(settled)) throw new Error(JSON.stringify(settled.left));
        placeMs.push(t1 - t0);
        settleMs.push(performance.now() - t1);
        if ((sampling += 1) % 25 === 0) {
          // Projection lag: from the append being acknowledged to the read model having applied it.
          const t0 = performance.now();
          void projector.waitFor(ledger.internals.handler.lastPosition()).then(() => lag.push(performance.now() - t0));
        }
        return 2;
      });
      placeMs.sort((a, b) => a - b);
      settleMs.sort((a, b) => a - b);
      const rawAtC = raw.find((x) => x.concurrency === c);
      const ratio = rawAtC ? round(r.opsPerSec / rawAtC.opsPerSec) : undefined;
      const each = { concurrency: c, placeP50Ms: round(percentile(placeMs, 50), 3), settleP50Ms: round(percentile(settleMs, 50), 3), rawInsertP50Ms: rawAtC?.p50Ms };
      perCommand.push(each);
      commands.push({ ...r, ratioToRawInsertsAtSameConcurrency: ratio, placeP50Ms: each.placeP50Ms, settleP50Ms: each.settleP50Ms,
        note: 'opsPerSec counts commands; p50/p99 are per place+settle pair' });
      console.log('  c=%d  %d commands/s (%sx raw Node inserts at c=%d: %s/s)  pair p50 %s ms  p99 %s ms', r.concurrency, r.opsPerSec,
        ratio ?? '?', c, rawAtC?.opsPerSec ?? '?', r.p50Ms, r.p99Ms);
      console.log('        p50 per command: place bet %s ms, settle %s ms; raw INSERT p50 at c=%d: %s ms', each.placeP50Ms, each.settleP50Ms, c, rawAtC?.p50Ms ?? '?');
    }
    const catchUpStart = performance.now();
    await projector.waitFor(ledger.internals.handler.lastPosition());
    report.projectorCatchUpMs = round(performance.now() - catchUpStart);
    report.projectorBatches = { count: batches.length, avgEvents: round(batches.reduce((a, b) => a + b, 0) / Math.max(batches.length, 1), 1), max: Math.max(...batches) };
    console.log('projector: %d batches, avg %d events, caught up %d ms after the load', batches.length, (report.projectorBatches as { avgEvents: number }).avgEvents, report.projectorCatchUpMs);
    lag.sort((a, b) => a - b);
    report.ledgerCommands = commands;
    report.perCommandP50 = perCommand;
    report.projectionLagAtSaturation = { samples: lag.length, p50Ms: round(percentile(lag, 50)), p99Ms: round(percentile(lag, 99)) };
    console.log('projection lag at saturation: p50 %d ms  p99 %d ms (%d samples)', round(percentile(lag, 50)), round(percentile(lag, 99)), lag.length);

    // Projection lag at a steady load of half the raw Node insert rate (the throughput aim), open loop.
    const bestRawRate = Math.max(...raw.map((r) => r.opsPerSec));
    const target = Number(process.env.BENCH_STEADY_RATE ?? Math.round(bestRawRate / 2));
    const steadyLag: number[] = [];
    const steady = { targetCommandsPerSec: target, achievedCommandsPerSec: 0, lagP50Ms: 0, lagP99Ms: 0 };
    {
      const pairsPerSec = target / 2;
      const started = performance.now();
      const firstBatch = batches.length;
      const inFlight: Promise<void>[] = [];
      let pairs = 0;
      while (performance.now() - started < SECONDS * 1000) {
        const due = Math.floor(((performance.now() - started) / 1000) * pairsPerSec);
        for (; pairs < due; pairs += 1) {
          const n = pairs;
          inFlight.push((async () => {
            const userId = 1 + ((n * 7919) % WALLETS);
            const id = `s${n}`;
            const placed = await ledger.placeBet({ id, userId, roundId: id, gameId: 7, gameIdentity: game, currencyId: 'USDT', amount: '1.5' });
            if (isLeft(placed)) throw new Error(JSON.stringify(placed.left));
            await ledger.settleBet(id, { payout: n % 2 === 0 ? '3' : '0' });
            if (n % 10 === 0) {
              const t0 = performance.now();
              await projector.waitFor(ledger.internals.handler.lastPosition());
              steadyLag.push(performance.now() - t0);
            }
          })());
        }
        await new Promise((r) => setTimeout(r, 2));
      }
      await Promise.all(inFlight);
      const steadyBatches = batches.slice(firstBatch);
      const times = batchTimes.slice(firstBatch);
      Object.assign(steady, {
        projectorBatches: steadyBatches.length,
        avgBatchEvents: round(steadyBatches.reduce((a, b) => a + b, 0) / Math.max(1, steadyBatches.length), 1),
        avgBatchIntervalMs: round((times.at(-1)! - times[0]!) / Math.max(1, times.length - 1)),
      });
      steady.achievedCommandsPerSec = round((pairs * 2) / ((performance.now() - started) / 1000), 0);
      steadyLag.sort((a, b) => a - b);
      steady.lagP50Ms = round(percentile(steadyLag, 50));
      steady.lagP99Ms = round(percentile(steadyLag, 99));
    }
    report.steadyLoad = steady;
    console.log('steady load %d commands/s (target %d): projection lag p50 %d ms  p99 %d ms; %j', steady.achievedCommandsPerSec, target, steady.lagP50Ms, steady.lagP99Ms, steady);

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
