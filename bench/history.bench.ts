/**
 * npm run bench:history — what a ledger's age costs. In one run: the same command on a fresh wallet and on wallets
 * with BENCH_HISTORY_SIZES settled bets (default 10,000, 100,000, 1,000,000), cold and warm (p50, p99) with the heap
 * per cached wallet and the retry of the first bet (bench/history/wallets.ts); then a month of BENCH_CLOSE_EVENTS
 * (1,000,000) events in BENCH_CLOSE_WALLETS (2,000) wallets closed while bets are answered, and its verify
 * (bench/history/close.ts). Settings: BENCH_RUNS cold commands per wallet (default 30), BENCH_WARM_RUNS (default 200),
 * BENCH_PARTS (wallets,close). Writes bench/results/history-<timestamp>.json. Not a test:
 * nothing here asserts a figure. Run with --expose-gc (the npm script does) for the heap figures.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import type pg from 'pg';
import type { EventStore } from '../src/infra/event-store/event-store.port.js';
import { createPostgresEventStore } from '../src/infra/event-store/postgres/postgres.event-store.js';
import { createPool } from '../src/infra/pg.js';
import { migrateAll } from '../src/schema.js';
import { benchWallets } from './history/wallets.js';
import { benchClose } from './history/close.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SIZES = (process.env.BENCH_HISTORY_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARM_RUNS = Number(process.env.BENCH_WARM_RUNS ?? 200);
const CLOSE_EVENTS = Number(process.env.BENCH_CLOSE_EVENTS ?? 1_000_000);
const CLOSE_WALLETS = Number(process.env.BENCH_CLOSE_WALLETS ?? 2_000);
const PARTS = (process.env.BENCH_PARTS ?? 'wallets,close').split(',');
const schema = `bench_history_${process.pid}`;

/** Each part in a schema of its own: the close's first period is the month it loads, with nothing booked before it. */
const inSchema = async <T>(admin: pg.Pool, name: string, run: (pool: pg.Pool, store: EventStore) => Promise<T>): Promise<T> => {
  await admin.query(`CREATE SCHEMA ${name}`);
  const pool = createPool({ connectionString: DATABASE_URL, schema: name, max: 10 });
  const store = createPostgresEventStore({ pool });
  try {
    await migrateAll(pool);
    return await run(pool, store);
  } finally {
    await store.close();
    await pool.end();
    await admin.query(`DROP SCHEMA ${name} CASCADE`);
  }
};

const main = async (): Promise<void> => {
  if (!(globalThis as { gc?: unknown }).gc) console.warn('no --expose-gc: heap figures include garbage');
  const admin = createPool({ connectionString: DATABASE_URL, max: 1 });
  try {
    const wallets = PARTS.includes('wallets')
      ? await inSchema(admin, `${schema}_wallets`, (pool, store) =>
          benchWallets({ pool, store, sizes: SIZES, runs: RUNS, warmRuns: WARM_RUNS }, (line) => console.log(line)),
        )
      : null;
    const close = PARTS.includes('close')
      ? await inSchema(admin, `${schema}_close`, (pool, store) =>
          benchClose({ pool, store, events: CLOSE_EVENTS, wallets: CLOSE_WALLETS, concurrency: 4 }, (line) => console.log(line)),
        )
      : null;
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/history-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
    const machine = { cpus: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30) };
    await writeFile(
      file,
      `${JSON.stringify({ at: new Date().toISOString(), machine, sizes: SIZES, runs: RUNS, wallets, close }, null, 2)}\n`,
    );
    console.log('report: %s', file);
  } finally {
    await admin.end();
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
