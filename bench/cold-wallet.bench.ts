/**
 * npm run bench:cold-wallet — how long the first command on a long wallet takes once the process has no state for it
 * (after a restart, or after the cache let it go): the wallet's stream folded page by page, then the command.
 * One wallet gets BENCH_BETS bets placed and settled (two events each) in a schema of its own; nothing analyses the
 * events table, as in a store that grew faster than its statistics, and then the same again after ANALYZE.
 * Beside each fold, in the same run: the baseline, one SELECT of the whole stream with no paging (what reading the
 * events costs at the least), and the pages as the store read them before (a LIMIT alone, no range of revisions).
 * Writes bench/results/cold-wallet-<timestamp>.json. Not a test: nothing here asserts a figure.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { isLeft } from 'fp-ts/lib/Either.js';
import { createLedger } from '../src/commands/ledger.js';
import { createPostgresEventStore } from '../src/infra/event-store/postgres/postgres.event-store.js';
import { createPool } from '../src/infra/pg.js';
import { migrateAll } from '../src/schema.js';
import { game } from './lib/game.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const BETS = Number(process.env.BENCH_BETS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PAGE = 1000;
const USER = 1;
const STREAM = `wallet-${USER}`;
const schema = `bench_cold_${process.pid}`;
const round = (n: number): number => Math.round(n * 10) / 10;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** ms of `f`, RUNS times, as median and range. */
const timed = async (f: () => Promise<unknown>) => {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const from = performance.now();
    await f();
    ms.push(performance.now() - from);
  }
  return { medianMs: round(median(ms)), minMs: round(Math.min(...ms)), maxMs: round(Math.max(...ms)) };
};

const bet = (id: string) => ({ id, userId: USER, roundId: id, gameId: 7, gameIdentity: game, currencyId: 'USDT' as const, amount: '1.5' });

const main = async (): Promise<void> => {
  const admin = createPool({ connectionString: DATABASE_URL, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = createPool({ connectionString: DATABASE_URL, schema, max: 10 });
  try {
    await migrateAll(pool);
    await pool.query('ALTER TABLE events SET (autovacuum_enabled = false)');
    const store = createPostgresEventStore({ pool });
    const newLedger = () => createLedger({ store, pool });
    const ledger = newLedger();
    const deposit = await ledger.requestDeposit({
      externalId: 'fund',
      userId: USER,
      providerId: 'TEST',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount: '100000000',
    });
    if (isLeft(deposit)) throw new Error(JSON.stringify(deposit.left));
    await ledger.completeDeposit(deposit.right.deposit.id, {});
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < BETS) {
          const id = `b-${next++}`;
          const placed = await ledger.placeBet(bet(id));
          if (isLeft(placed)) throw new Error(JSON.stringify(placed.left));
          await ledger.settleBet(id, { payout: '1' });
        }
      }),
    );
    const events = Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE stream_id = $1', [STREAM])).rows[0]!.n);
    console.log(
      '%d bets placed and settled on one wallet in %s s: %d events in its stream',
      BETS,
      round((performance.now() - started) / 1000),
      events,
    );

    const wholeRead = () => pool.query('SELECT * FROM events WHERE stream_id = $1 ORDER BY stream_revision', [STREAM]);
    const limitOnlyPages = async (): Promise<void> => {
      for (let from = 0; ; from += PAGE) {
        const { rows } = await pool.query<{ stream_revision: string }>(
          'SELECT * FROM events WHERE stream_id = $1 AND stream_revision >= $2 ORDER BY stream_revision LIMIT $3',
          [STREAM, from, PAGE],
        );
        if (rows.length < PAGE) return;
      }
    };
    let cold = 0;
    const coldCommand = async (): Promise<void> => {
      cold += 1;
      const placed = await newLedger().placeBet(bet(`cold-${cold}`));
      if (isLeft(placed)) throw new Error(JSON.stringify(placed.left));
    };
    const measure = async (statistics: string) => {
      const row = {
        statistics,
        baselineWholeStreamReadMs: await timed(wholeRead),
        limitOnlyPagesReadMs: await timed(limitOnlyPages),
        coldCommandMs: await timed(coldCommand),
      };
      const b = row.baselineWholeStreamReadMs.medianMs;
      console.log(
        '%s: first command on the cold wallet %s ms (%s-%s), %sx the baseline; baseline, one SELECT of the whole stream %s ms; ' +
          'the pages as read with a LIMIT alone (reading only, no fold) %s ms, %sx the baseline',
        statistics,
        row.coldCommandMs.medianMs,
        row.coldCommandMs.minMs,
        row.coldCommandMs.maxMs,
        round(row.coldCommandMs.medianMs / b),
        b,
        row.limitOnlyPagesReadMs.medianMs,
        round(row.limitOnlyPagesReadMs.medianMs / b),
      );
      return row;
    };
    const rows = [await measure('events never analysed')];
    await pool.query('ANALYZE events');
    rows.push(await measure('after ANALYZE'));

    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/cold-wallet-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
    await writeFile(
      file,
      `${JSON.stringify({ at: new Date().toISOString(), bets: BETS, events, runs: RUNS, page: PAGE, rows }, null, 2)}\n`,
    );
    console.log('report: %s', file);
    await store.close();
  } finally {
    await pool.end();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
