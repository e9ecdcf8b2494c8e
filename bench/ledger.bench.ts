/**
 * npm run bench:ledger — wallet commands (place bet, settle) through the real command path,
 * next to two baselines measured in the same run on the same server:
 *   1. raw single-row INSERTs of an event-sized row from Node (same driver, same pool size);
 *   2. pgbench doing the same INSERT (the server's own limit).
 * The command path is measured alone first (no read model following), then with every read model following in-process,
 * then with them following in a process of their own (as docker-compose.yml deploys them).
 * Also projection lag: from a command's append to its effect being visible in the read models, per read model and
 * for all of them; each read model's cost per event; and "command acknowledged -> visible in a consistent read".
 * Writes bench/results/ledger-<timestamp>.json. Not a test: nothing here asserts a timing.
 */
import { execFile, spawn } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isLeft } from 'fp-ts/lib/Either.js';
import pg from 'pg';
import { createLedger } from '../src/commands/ledger.js';
import { migrateLedger } from '../src/commands/ledger.migration.js';
import { createPostgresEventStore, FOLLOWER_SETTINGS, WRITER_SETTINGS } from '../src/infra/event-store/postgres/postgres.event-store.js';
import { followingStatement } from '../src/infra/event-store/postgres/postgres.reads.js';
import { appendStatement, leanAppendStatement, soloAppendStatement } from '../src/infra/event-store/postgres/postgres.append.sql.js';
import { migrateEventStore } from '../src/infra/event-store/postgres/postgres.migration.js';
import { createPool } from '../src/infra/pg.js';
import { allProjections } from '../src/read-models/all-projections.js';
import { startProjector } from '../src/projections/projection-runner.js';
import { comparePositions, parsePosition, START } from '../src/infra/event-store/event-store.port.js';
import { createReadModelWaiter } from '../src/projections/read-model-waiter.js';
import { rebuildProjections } from '../src/projections/rebuild.js';
import { COUNTED_LISTS } from '../src/read-models/list-counts/list-counts.js';

/** Every kept count key whose value differs from a fresh count(*) (empty when the counts are right). */
const COUNTS_CHECK_SQL = COUNTED_LISTS.map(
  (l) => `(WITH counted AS (SELECT k AS key, count(*) AS n FROM ${l.table} AS r, unnest(${l.keys}) AS k GROUP BY k)
  SELECT coalesce(c.key, k.key) AS key FROM counted c FULL JOIN ${l.counts} k ON k.key = c.key WHERE coalesce(k.n, 0) <> coalesce(c.n, 0))`,
).join(' UNION ALL ');
import { shareSubscriptions } from '../src/infra/follow/shared-subscriptions.js';
import { startFollowersThread } from '../src/followers/followers.thread.js';
import { createLocalBus } from '../src/infra/bus.js';
import { createLogger } from '../src/infra/logger.js';
import { migrateNonCore } from '../src/schema.js';
import { postgresCpuMs, postgresCpuSpent, processCpuMs } from './cpu.js';

const run = promisify(execFile);
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const LEVELS = (process.env.BENCH_CONCURRENCY ?? '1,4,16,64,256').split(',').map(Number);
const POOL_SIZE = Number(process.env.BENCH_POOL ?? 10);
/** Timed blocks per concurrency in each ledger row: the ratio's spread on a machine whose speed drifts. */
const BLOCKS = Math.max(1, Number(process.env.BENCH_BLOCKS ?? 1));
/** The projector's coalescing wait (its default when unset). */
const COALESCE_MS = process.env.BENCH_COALESCE_MS ? Number(process.env.BENCH_COALESCE_MS) : undefined;
const WALLETS = 2000;
const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } };
const EVENT_DATA = JSON.stringify({
  transactionId: 'bet_0123456789',
  currencyId: 'USDT',
  amount: '1.5',
  usdAmount: '1.5',
  betId: '0123456789',
  roundId: 'r-1',
  gameId: 7,
  gameIdentity: game,
  postings: [
    { account: 'user:1', currencyId: 'USDT', amount: '-1.5' },
    { account: 'house:bets', currencyId: 'USDT', amount: '1.5' },
  ],
  balanceAfter: '98.5',
  at: new Date().toISOString(),
});

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

/** Runs `worker` on `concurrency` loops for `seconds`; returns ops/s, latency percentiles in ms, and CPU µs per op here and in PostgreSQL. */
const drive = async (concurrency: number, seconds: number, worker: (client: number, i: number) => Promise<number>) => {
  const deadline = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let ops = 0;
  const pgBefore = await postgresCpuMs();
  const cpuBefore = process.cpuUsage();
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, client) => {
      for (let i = 0; performance.now() < deadline; i += 1) {
        const t0 = performance.now();
        const done = await worker(client, i); // not `ops += await ...`: that reads ops before awaiting
        ops += done;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  loopDelay.disable();
  const cpu = process.cpuUsage(cpuBefore);
  const pgSpent = postgresCpuSpent(pgBefore, await postgresCpuMs());
  latencies.sort((a, b) => a - b);
  return {
    concurrency,
    opsPerSec: round(ops / elapsed, 0),
    p50Ms: round(percentile(latencies, 50), 3),
    p99Ms: round(percentile(latencies, 99), 3),
    nodeCpuUsPerOp: round((cpu.user + cpu.system) / Math.max(1, ops), 0),
    postgresCpuUsPerOp: pgSpent === undefined ? undefined : round((pgSpent * 1000) / Math.max(1, ops), 0),
    /** How long the loops' own thread was held up: what a request beside them would wait on top of its own work. */
    loopDelayP99Ms: round(loopDelay.percentile(99) / 1e6),
    loopDelayMaxMs: round(loopDelay.max / 1e6),
  };
};
/** A catch-up's size, time and rate, and how long the event loop beside it was held up. */
const catchUpFigures = (events: number, ms: number, loop: IntervalHistogram) => ({
  events,
  ms: round(ms),
  eventsPerSec: Math.round((events * 1000) / ms),
  loopDelayP99Ms: round(loop.percentile(99) / 1e6),
  loopDelayMaxMs: round(loop.max / 1e6),
});
/** "CPU per op: this process N µs, PostgreSQL P µs" for a drive() result (an op is an insert or a command). */
const cpuLine = (r: { nodeCpuUsPerOp: number; postgresCpuUsPerOp: number | undefined }): string =>
  `CPU per op: this process ${r.nodeCpuUsPerOp} µs, PostgreSQL ${r.postgresCpuUsPerOp ?? '?'} µs`;

/** With BENCH_PROFILE_DIR set and a name given, a CPU profile of this process while `f` runs, as `<name>.cpuprofile` there. */
const profiled = async <T>(name: string | undefined, f: () => Promise<T>): Promise<T> => {
  const dir = process.env.BENCH_PROFILE_DIR;
  if (!dir || name === undefined) return f();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await f();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
};

type PairsOptions = Readonly<{
  /** With BENCH_PROFILE_DIR set, the name of this row's CPU profile. */
  profile?: string;
  /** Called after each place + settle pair. */
  onPair?: () => void;
  /** Resolves once the followers are idle, so that the raw INSERT beside the row does not compete with them. */
  quiet?: () => Promise<void>;
  seconds?: number;
}>;

/** "0.52x the raw INSERT run beside it: 4,800/s" for a pairs() result. */
const besideLine = (r: { ratioBeside: number; rawBeside: number }): string =>
  `${r.ratioBeside}x the raw INSERT run beside it: ${r.rawBeside}/s`;

/** One ledger row's blocks, for the closing lines that put every row side by side. */
type RowBlocks = Readonly<{ row: string; blocks: readonly { concurrency: number; ratioToRawInsertsBeside: number }[] }>;
/** Per concurrency, each row's median (range) ratio to the raw INSERT run beside its blocks: the figures to quote together. */
const atAGlance = (rows: readonly RowBlocks[]) =>
  LEVELS.map((c) => ({
    concurrency: c,
    rows: rows.map(({ row, blocks }) => ({
      row,
      ratioBeside: spread(blocks.filter((b) => b.concurrency === c).map((b) => b.ratioToRawInsertsBeside)),
    })),
  }));

type BlockSpread = Readonly<{ concurrency: number; blocks: number; ratioBeside: Spread; commandsPerSec: Spread }>;
type Spread = Readonly<{ median: number; min: number; max: number }>;
/** Median (the blocks' own figure in the middle, as `percentile` picks it) and range of `xs`. */
const spread = (xs: readonly number[]): Spread => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: percentile(s, 50), min: s[0]!, max: s[s.length - 1]! };
};
/** Prints and returns the median and range, over a row's blocks at one concurrency, of the ratio to the raw INSERT beside each. */
const spreadOf = (c: number, blocks: readonly { ratioBeside: number; opsPerSec: number }[]): BlockSpread => {
  const out = {
    concurrency: c,
    blocks: blocks.length,
    ratioBeside: spread(blocks.map((b) => b.ratioBeside)),
    commandsPerSec: spread(blocks.map((b) => b.opsPerSec)),
  };
  console.log(
    '  c=%d  over %d blocks: %sx the raw INSERT run beside each, median (%s-%s); %d commands/s median (%d-%d)',
    c,
    out.blocks,
    out.ratioBeside.median,
    out.ratioBeside.min,
    out.ratioBeside.max,
    out.commandsPerSec.median,
    out.commandsPerSec.min,
    out.commandsPerSec.max,
  );
  return out;
};

/** pgbench over `sql` for SECONDS in `schema`, `-M prepared`, the event JSON bound as :data; undefined when it fails. */
const pgbenchRun = async (
  schema: string,
  sql: string,
  clients: number,
  settings: readonly string[] = [],
  mode: 'prepared' | 'simple' = 'prepared',
): Promise<{ tps: number; latencyMs: number } | undefined> => {
  const script = join(tmpdir(), `bench-${process.pid}-${Math.random().toString(36).slice(2)}.sql`);
  await writeFile(script, `${sql}\n`);
  try {
    // The event JSON goes in as a bound variable: pgbench would read its "...:45..." as variable names.
    const args = ['-n', '-M', mode, '-D', `data=${EVENT_DATA}`, '-c', String(clients), '-j', String(Math.min(2, clients))];
    const options = [`-c search_path=${schema}`, ...settings.map((x) => `-c ${x}`)].join(' ');
    const { stdout } = await run('pgbench', [...args, '-T', String(SECONDS), '-f', script, DATABASE_URL], {
      env: { ...process.env, PGOPTIONS: options },
    });
    return {
      tps: round(Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? 0), 0),
      latencyMs: Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1] ?? 0),
    };
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? error);
    console.log('pgbench failed: %s', stderr.split('\n').slice(0, 3).join(' '));
    return undefined;
  } finally {
    await rm(script, { force: true });
  }
};

/** A statement with its parameters written in as pgbench expressions, on one line. */
const inlined = (text: string, params: readonly string[]): string =>
  `${text.replace(/\$(\d+)/g, (_, k: string) => `(${params[Number(k) - 1]!})`).replace(/\s+/g, ' ')};`;

/** A group commit's parameters for `n` one-event commands with their keys, given each request's stream, kind and revision. */
const groupParams = (n: number, stream: (i: number) => string, kind: string, expected: (i: number) => string): string[] => {
  const each = (f: (i: number) => string): string => `ARRAY[${Array.from({ length: n }, (_, i) => f(i)).join(', ')}]`;
  return [
    each(stream),
    each(() => kind),
    each(expected),
    each(() => '1'),
    each((i) => String(i + 1)),
    each(() => '1'),
    each(() => 'gen_random_uuid()'),
    each(() => `'BetPlaced'`),
    `array_to_string(${each(() => ':data')}, chr(1))`,
    `array_to_string(${each(() => `'{}'`)}, chr(1))`,
    each((i) => String(i + 1)),
    each(() => `'bet'`),
    each(() => 'gen_random_uuid()::text'),
    each(() => '1'),
  ];
};

/**
 * The store's own append statement (with key claims) for `n` commands of one event each, its parameters written as arrays
 * (the event JSON bound as :data, the documents joined as the store joins them): fresh event ids and keys on every run, and
 * streams among 2,000, so that most appends update a stream's head, as a wallet's do.
 */
const appendScript = (n: number): string =>
  inlined(
    appendStatement(true, false),
    groupParams(
      n,
      (i) => `'pgbench-' || (random() * 499)::int || '-${i}'`,
      `'any'`,
      () => 'NULL',
    ),
  );

/** The streams the exact-revision scripts write: each transaction picks streams at random and reads their heads in the statement. */
const EXACT_STREAMS = 500;
const headOf = (stream: string): string => `SELECT revision FROM streams WHERE stream_id = ${stream}`;

/** What a group commit of `n` commands whose wallets the process holds sends: the lean statement, or for one the solo statement. */
const exactScript = (n: number): string => {
  const stream = (i: number): string => `'exact-' || ((:w * ${n} + ${i}) % ${EXACT_STREAMS})`;
  const pick = `\\set w random(0, ${Math.floor(EXACT_STREAMS / n) - 1})\n`;
  if (n === 1) {
    const solo = [
      stream(0),
      headOf(stream(0)),
      'gen_random_uuid()',
      `'BetPlaced'`,
      ':data',
      `'{}'`,
      `'bet'`,
      'gen_random_uuid()::text',
      '1',
    ];
    return pick + inlined(soloAppendStatement(true, false), solo);
  }
  return (
    pick +
    inlined(
      leanAppendStatement(true, false),
      groupParams(n, stream, `'exact'`, (i) => `(${headOf(stream(i))})`),
    )
  );
};

const main = async (): Promise<void> => {
  const schema = `bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = createPool({ connectionString: DATABASE_URL, schema, max: POOL_SIZE });
  const keysPool = createPool({ connectionString: DATABASE_URL, schema, max: 2, synchronousCommit: false });
  const glance: RowBlocks[] = [];
  const report: Record<string, unknown> = {
    at: new Date().toISOString(),
    database: DATABASE_URL.replace(/\/\/[^@]*@/, '//'),
    seconds: SECONDS,
    poolSize: POOL_SIZE,
  };
  try {
    await migrateEventStore(pool);
    await migrateLedger(pool);
    await migrateNonCore(pool);
    await pool.query(
      `CREATE TABLE raw_events (id bigserial PRIMARY KEY, stream_id text NOT NULL, type text NOT NULL, data jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
    );

    // Baseline 1: raw single-row INSERTs from Node, same driver and pool size.
    console.log('baseline: raw INSERT from Node (pg, pool of %d)', POOL_SIZE);
    const raw: Awaited<ReturnType<typeof drive>>[] = [];
    const rawInserts = (c: number, seconds: number) =>
      drive(c, seconds, async (client, i) => {
        await pool.query('INSERT INTO raw_events (stream_id, type, data) VALUES ($1, $2, $3)', [
          `wallet-${client}`,
          'BetPlaced',
          EVENT_DATA,
        ]);
        return i >= 0 ? 1 : 0;
      });
    for (const c of LEVELS) {
      const r = await rawInserts(c, SECONDS);
      raw.push(r);
      console.log('  c=%d  %d inserts/s  p50 %s ms  p99 %s ms; %s', r.concurrency, r.opsPerSec, r.p50Ms, r.p99Ms, cpuLine(r));
    }
    report.rawInsertNode = raw;

    // Baseline 2: pgbench, the same INSERT, the server's own limit.
    const pgbench = [];
    for (const c of [1, 16, 64]) {
      const r = await pgbenchRun(schema, `INSERT INTO raw_events (stream_id, type, data) VALUES ('wallet-1', 'BetPlaced', :data);`, c);
      if (r) {
        pgbench.push({ concurrency: c, opsPerSec: r.tps, avgLatencyMs: r.latencyMs });
        console.log('baseline: pgbench c=%d  %d inserts/s  avg %d ms', c, r.tps, r.latencyMs);
      }
    }
    report.pgbench = pgbench;

    // What one group-commit append costs the server, next to inserting the same rows: at c=4 the four loops' commands leave
    // in one append, so a round of four costs one of these plus the Node work of four commands.
    const appendCost: Record<string, number | undefined> = {};
    await pool.query(`INSERT INTO streams (stream_id, revision) SELECT 'exact-' || i, 0 FROM generate_series(0, ${EXACT_STREAMS - 1}) i`);
    for (const [key, label, sql] of [
      ['roundTrip', 'SELECT 1, one round trip without a write', 'SELECT 1;'],
      ['insert1', 'INSERT of 1 event-sized row', `INSERT INTO raw_events (stream_id, type, data) VALUES ('wallet-1', 'BetPlaced', :data);`],
      [
        'insert4',
        'INSERT of 4 event-sized rows',
        `INSERT INTO raw_events (stream_id, type, data) SELECT 'wallet-1', 'BetPlaced', :data FROM generate_series(1, 4);`,
      ],
      ['append1', 'group-commit append of 1 command with its key', appendScript(1)],
      ['append4', 'group-commit append of 4 commands with their keys', appendScript(4)],
      ['exact1', 'the same for 1 held wallet, as sent: solo statement', exactScript(1)],
      ['exact4', 'the same for 4 held wallets, as sent: lean statement', exactScript(4)],
    ] as const) {
      const r = await pgbenchRun(schema, sql, 1, WRITER_SETTINGS);
      appendCost[`${key}Ms`] = r?.latencyMs;
      console.log('server cost (pgbench c=1, prepared): %s  avg %s ms', label.padEnd(50), r?.latencyMs ?? '?');
    }
    report.appendCostAtTheServer = appendCost;

    // A follower at the head reads the few events since its last read, about every 10 ms under load: planned once on the
    // store's follower connections, or planned afresh on each read.
    const head = await pool.query<{ t: string; g: string }>(
      `SELECT transaction_id::text AS t, global_position::text AS g FROM events
       ORDER BY transaction_id DESC, global_position DESC OFFSET 35 LIMIT 1`,
    );
    const behind = head.rows[0];
    if (behind) {
      const follow = `${followingStatement(500).text.replace(/\$1/g, `'${behind.t}'`).replace(/\$2/g, behind.g).replace(/\s+/g, ' ')};`;
      const once = await pgbenchRun(schema, follow, 1, FOLLOWER_SETTINGS);
      const each = await pgbenchRun(schema, follow, 1, [], 'simple');
      report.followReadAtTheServer = { events: 35, plannedOnceMs: once?.latencyMs, plannedEachReadMs: each?.latencyMs };
      console.log(
        'server cost (pgbench c=1): the follow read of the 35 newest events, planned once on the follower settings avg %s ms, planned on each read avg %s ms',
        once?.latencyMs ?? '?',
        each?.latencyMs ?? '?',
      );
    }

    // The ledger: place bet + settle through createLedger (validation, keys, decide, group commit).
    const store = createPostgresEventStore({ pool, pollIntervalMs: 100 });
    const ledger = createLedger({ store, pool, keysPool });
    console.log('funding %d wallets...', WALLETS);
    for (let u = 1; u <= WALLETS; u += 100) {
      await Promise.all(
        Array.from({ length: 100 }, async (_, k) => {
          const d = await ledger.requestDeposit({
            externalId: `fund-${u + k}`,
            userId: u + k,
            providerId: 'TEST',
            networkId: 'ETH',
            currencyId: 'USDT',
            amount: '1000000',
          });
          if (isLeft(d)) throw new Error(JSON.stringify(d.left));
          await ledger.completeDeposit(d.right.deposit.id, {});
        }),
      );
    }

    /** A bet of 1.5 USDT in round `id`, as every load of this bench places it. */
    const placeBet = (id: string, userId: number) =>
      ledger.placeBet({ id, userId, roundId: id, gameId: 7, gameIdentity: game, currencyId: 'USDT', amount: '1.5' });
    let betSeq = 0;
    /**
     * One place bet + settle pair per iteration, on `c` loops; p50 of each command. On this kind of machine the raw INSERT's
     * rate moves by 2x within minutes, so the same INSERT also runs for half the time right before and right after (once
     * `quiet` says the followers are idle): the ratio to the mean of those two is the one a drift does not skew.
     */
    const pairs = async (
      c: number,
      { onPair = () => undefined, quiet = async () => undefined, seconds = SECONDS, profile }: PairsOptions = {},
    ) => {
      await quiet();
      const rawBefore = await rawInserts(c, seconds / 2);
      const placeMs: number[] = [];
      const settleMs: number[] = [];
      const loops = () =>
        drive(c, seconds, async (client) => {
          const userId = 1 + ((client * 7919 + betSeq) % WALLETS);
          const id = `b${(betSeq += 1)}`;
          const t0 = performance.now();
          const placed = await placeBet(id, userId);
          if (isLeft(placed)) throw new Error(JSON.stringify(placed.left));
          const t1 = performance.now();
          const settled = await ledger.settleBet(id, { payout: client % 2 === 0 ? '3' : '0' });
          if (isLeft(settled)) throw new Error(JSON.stringify(settled.left));
          placeMs.push(t1 - t0);
          settleMs.push(performance.now() - t1);
          onPair();
          return 2;
        });
      const r = await profiled(profile && `${profile}-c${c}`, loops);
      await quiet();
      const rawAfter = await rawInserts(c, seconds / 2);
      placeMs.sort((a, b) => a - b);
      settleMs.sort((a, b) => a - b);
      const rawAtC = raw.find((x) => x.concurrency === c);
      const rawBeside = round((rawBefore.opsPerSec + rawAfter.opsPerSec) / 2, 0);
      return {
        ...r,
        ratio: rawAtC ? round(r.opsPerSec / rawAtC.opsPerSec) : undefined,
        rawAtC,
        rawBeside,
        ratioBeside: round(r.opsPerSec / rawBeside),
        placeP50Ms: round(percentile(placeMs, 50), 3),
        settleP50Ms: round(percentile(settleMs, 50), 3),
      };
    };
    /** A row's first line: its rate, its ratios to the raw INSERT and its pair latencies. */
    const printRate = (c: number, r: Awaited<ReturnType<typeof pairs>>): void =>
      console.log(
        '  c=%d  %d commands/s (%sx raw Node inserts at c=%d: %s/s; %s)  pair p50 %s ms  p99 %s ms',
        c,
        r.opsPerSec,
        r.ratio ?? '?',
        c,
        r.rawAtC?.opsPerSec ?? '?',
        besideLine(r),
        r.p50Ms,
        r.p99Ms,
      );
    /** What every ledger row keeps of a block: its rate, its ratios to the raw INSERT, its pair latencies and CPU. */
    const blockFigures = (block: number, c: number, r: Awaited<ReturnType<typeof pairs>>) => ({
      block,
      concurrency: c,
      opsPerSec: r.opsPerSec,
      ratioToRawInsertsAtSameConcurrency: r.ratio,
      rawInsertsBesidePerSec: r.rawBeside,
      ratioToRawInsertsBeside: r.ratioBeside,
      p50Ms: r.p50Ms,
      p99Ms: r.p99Ms,
      nodeCpuUsPerCommand: r.nodeCpuUsPerOp,
      postgresCpuUsPerCommand: r.postgresCpuUsPerOp,
      loopDelayP99Ms: r.loopDelayP99Ms,
      loopDelayMaxMs: r.loopDelayMaxMs,
    });

    // Untimed: the first commands compile the command path (JIT) and the server's plans; the first row would pay for them.
    await pairs(4, { seconds: 2 });
    // The command path on its own: what the append costs next to the raw INSERT, with no read model following.
    console.log('ledger, command path alone (no read model following): place bet + settle (2 commands per iteration)');
    const alone = [];
    const spreads: { alone: BlockSpread[]; inProcess: BlockSpread[] } = { alone: [], inProcess: [] };
    for (const c of LEVELS) {
      const blocks = [];
      for (let block = 1; block <= BLOCKS; block += 1) {
        const r = await pairs(c, { profile: block === 1 ? 'alone' : undefined });
        blocks.push(r);
        alone.push({ ...blockFigures(block, c, r), placeP50Ms: r.placeP50Ms, settleP50Ms: r.settleP50Ms, rawInsertP50Ms: r.rawAtC?.p50Ms });
        console.log(
          '  c=%d  %d commands/s (%sx raw Node inserts at c=%d: %s/s; %s)  pair p50 %s ms; p50 per command: place bet %s ms, settle %s ms; raw INSERT p50 %s ms; %s',
          c,
          r.opsPerSec,
          r.ratio ?? '?',
          c,
          r.rawAtC?.opsPerSec ?? '?',
          besideLine(r),
          r.p50Ms,
          r.placeP50Ms,
          r.settleP50Ms,
          r.rawAtC?.p50Ms ?? '?',
          cpuLine(r),
        );
      }
      if (BLOCKS > 1) spreads.alone.push(spreadOf(c, blocks));
    }
    report.ledgerCommandsAlone = alone;
    glance.push({ row: 'the command path alone', blocks: alone });
    // The closed loops move in rounds: each loop's command waits in the same append, then the answers and the next commands
    // are worked out one after another on one thread. So a round of c commands costs about one append of c plus c times the
    // Node work of a command, and neither overlaps the other.
    const appendOf = new Map([
      [1, appendCost.exact1Ms],
      [4, appendCost.exact4Ms],
    ]);
    const rounds = alone.flatMap((a) => {
      if (a.block !== 1) return [];
      const appendMs = appendOf.get(a.concurrency);
      if (appendMs === undefined) return [];
      const nodeMs = round((a.concurrency * a.nodeCpuUsPerCommand) / 1000, 3);
      const roundMs = round(appendMs + nodeMs, 3);
      const ceiling = round((a.concurrency * 1000) / roundMs, 0);
      const rawAtC = raw.find((x) => x.concurrency === a.concurrency);
      return [
        { concurrency: a.concurrency, appendMs, nodeMs, roundMs, ceiling, ratio: rawAtC ? round(ceiling / rawAtC.opsPerSec) : undefined },
      ];
    });
    for (const r of rounds) {
      console.log(
        '  c=%d  a round: one append of %d at the server %s ms + Node work of %d commands %s ms = %s ms, at most %d commands/s (%sx raw)',
        r.concurrency,
        r.concurrency,
        r.appendMs,
        r.concurrency,
        r.nodeMs,
        r.roundMs,
        r.ceiling,
        r.ratio ?? '?',
      );
    }
    report.commandRounds = rounds;

    const batches: number[] = [];
    const batchTimes: number[] = [];
    // Then as in production: every read model follows on its own, from one shared read of new events. They start from
    // the beginning, so they first catch up on every event so far, as a projector does after a restart.
    const storeReads = { calls: 0, events: 0 };
    const followed = shareSubscriptions({
      ...store,
      readAll: async (o) => {
        const events = await store.readAll(o);
        storeReads.calls += 1;
        storeReads.events += events.length;
        return events;
      },
    });
    const backlog = Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n);
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    const catchUpFrom = performance.now();
    const projector = startProjector({
      store: followed,
      pool,
      projections: allProjections,
      coalesceMs: COALESCE_MS,
      onBatch: ({ events }) => {
        batches.push(events);
        batchTimes.push(performance.now());
      },
    });
    const waiter = createReadModelWaiter({ pool, store, local: projector });
    const lagPerModel = new Map<string, number[]>(allProjections.map((p) => [p.name, []]));
    /** Lag of every read model and of all of them, from a command's acknowledgement. */
    const pendingSamples: Promise<unknown>[] = [];
    const sampleLag = (overall: number[]): void => {
      const at = ledger.internals.handler.lastPosition();
      const t0 = performance.now();
      for (const [name, samples] of lagPerModel) {
        pendingSamples.push(projector.waitForModels([name], at).then(() => samples.push(performance.now() - t0)));
      }
      pendingSamples.push(projector.waitFor(at).then(() => overall.push(performance.now() - t0)));
    };
    /** The slowest samples come in last: leaving them out would report a lag lower than it was. */
    const allSamplesIn = async (): Promise<void> => {
      await Promise.all(pendingSamples);
      pendingSamples.length = 0;
    };
    await projector.waitFor(ledger.internals.handler.lastPosition());
    loopDelay.disable();
    const catchUpMs = performance.now() - catchUpFrom;
    const catchUp = {
      ...catchUpFigures(backlog, catchUpMs, loopDelay),
      storeReads: storeReads.calls,
      eventsReadPerEvent: round(storeReads.events / Math.max(1, backlog)),
    };
    report.readModelsCatchUp = catchUp;
    console.log(
      'read models catching up on the %s events so far: %s ms (%s events/s), %s store reads (%s events read per event), ' +
        "this process's event loop delayed p99 %s ms, max %s ms",
      catchUp.events,
      catchUp.ms,
      catchUp.eventsPerSec,
      catchUp.storeReads,
      catchUp.eventsReadPerEvent,
      catchUp.loopDelayP99Ms,
      catchUp.loopDelayMaxMs,
    );

    console.log('ledger with every read model following in this process: place bet + settle (2 commands per iteration)');
    const commands = [];
    const perCommand: { concurrency: number; placeP50Ms: number; settleP50Ms: number; rawInsertP50Ms: number | undefined }[] = [];
    const lag: number[] = [];
    for (const c of LEVELS) {
      const blocks = [];
      for (let block = 1; block <= BLOCKS; block += 1) {
        let sampling = 0;
        // Projection lag: from the append being acknowledged to the read models having applied it.
        const r = await pairs(c, {
          onPair: () => {
            if ((sampling += 1) % 25 === 0) sampleLag(lag);
          },
          quiet: () => projector.waitFor(ledger.internals.handler.lastPosition()),
          profile: block === 1 ? 'in-process' : undefined,
        });
        blocks.push(r);
        const each = { concurrency: c, placeP50Ms: r.placeP50Ms, settleP50Ms: r.settleP50Ms, rawInsertP50Ms: r.rawAtC?.p50Ms };
        perCommand.push(each);
        commands.push({
          ...blockFigures(block, c, r),
          placeP50Ms: each.placeP50Ms,
          settleP50Ms: each.settleP50Ms,
          note: 'opsPerSec counts commands; p50/p99 are per place+settle pair',
        });
        printRate(c, r);
        console.log(
          '        p50 per command: place bet %s ms, settle %s ms; raw INSERT p50 at c=%d: %s ms; %s (read models included); ' +
            'event loop delayed p99 %s ms, max %s ms',
          each.placeP50Ms,
          each.settleP50Ms,
          c,
          r.rawAtC?.p50Ms ?? '?',
          cpuLine(r),
          r.loopDelayP99Ms,
          r.loopDelayMaxMs,
        );
      }
      if (BLOCKS > 1) spreads.inProcess.push(spreadOf(c, blocks));
    }
    if (BLOCKS > 1) report.blockSpreads = spreads;
    /** Prints and returns p50/p99 of each read model's lag samples. */
    const lagTable = (label: string) => {
      const out: Record<string, { p50Ms: number; p99Ms: number; samples: number }> = {};
      for (const [name, samples] of lagPerModel) {
        const s = [...samples].sort((a, b) => a - b);
        out[name] = { p50Ms: round(percentile(s, 50)), p99Ms: round(percentile(s, 99)), samples: s.length };
      }
      console.log(
        'lag per read model at %s: %s',
        label,
        Object.entries(out)
          .map(([n, v]) => `${n} p50 ${v.p50Ms} p99 ${v.p99Ms}`)
          .join('; '),
      );
      return out;
    };
    const catchUpStart = performance.now();
    await projector.waitFor(ledger.internals.handler.lastPosition());
    report.projectorCatchUpMs = round(performance.now() - catchUpStart);
    await allSamplesIn();
    report.projectorBatches = {
      count: batches.length,
      avgEvents: round(batches.reduce((a, b) => a + b, 0) / Math.max(batches.length, 1), 1),
      max: Math.max(...batches),
    };
    console.log(
      'projector: %d batches (each group of read models counts its own), avg %d events, caught up %d ms after the load',
      batches.length,
      (report.projectorBatches as { avgEvents: number }).avgEvents,
      report.projectorCatchUpMs,
    );
    lag.sort((a, b) => a - b);
    report.ledgerCommands = commands;
    glance.push({ row: 'every read model on the same thread', blocks: commands });
    report.perCommandP50 = perCommand;
    report.projectionLagAtSaturation = { samples: lag.length, p50Ms: round(percentile(lag, 50)), p99Ms: round(percentile(lag, 99)) };
    console.log(
      'projection lag at saturation (all read models): p50 %d ms  p99 %d ms (%d samples)',
      round(percentile(lag, 50)),
      round(percentile(lag, 99)),
      lag.length,
    );
    report.lagPerReadModelAtSaturation = lagTable('saturation');

    /** Projection lag and ack -> consistent read at a steady open-loop load of `target` commands/s. */
    const steadyPhase = async (target: number, label: string, key: string): Promise<void> => {
      const steadyLag: number[] = [];
      const visible: number[] = [];
      let staleReads = 0;
      const steady = { targetCommandsPerSec: target, achievedCommandsPerSec: 0, lagP50Ms: 0, lagP99Ms: 0 };
      for (const samples of lagPerModel.values()) samples.length = 0;
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
            inFlight.push(
              (async () => {
                const userId = 1 + ((n * 7919) % WALLETS);
                const id = `${key}-${n}`;
                const placed = await placeBet(id, userId);
                if (isLeft(placed)) throw new Error(JSON.stringify(placed.left));
                const settled = await ledger.settleBet(id, { payout: n % 2 === 0 ? '3' : '0' });
                if (isLeft(settled)) throw new Error(JSON.stringify(settled.left));
                if (n % 10 === 0) sampleLag(steadyLag);
                if (n % 10 === 5) {
                  // Command acknowledged -> visible in a consistent read (what GET /bets does: wait for its read models, then read).
                  const t0 = performance.now();
                  const reached = await waiter.reach(['bets', 'users'], undefined, 2_000);
                  const { rows } = await pool.query(`SELECT status FROM bets WHERE id = $1`, [id]);
                  // A stale answer (the 2 s bound hit) counts as a sample of 2 s and is reported; a consistent one must show the bet.
                  if (reached.stale) staleReads += 1;
                  else if (rows[0]?.status !== 'SETTLED') throw new Error(`bet ${id}: a consistent read did not show it settled`);
                  visible.push(performance.now() - t0);
                }
              })(),
            );
          }
          await new Promise((r) => setTimeout(r, 2));
        }
        await Promise.all(inFlight);
        await allSamplesIn();
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
      visible.sort((a, b) => a - b);
      report[key] = {
        ...steady,
        ackToConsistentRead: {
          samples: visible.length,
          stale: staleReads,
          p50Ms: round(percentile(visible, 50)),
          p99Ms: round(percentile(visible, 99)),
        },
      };
      console.log(
        '%s: steady load %d commands/s (target %d): projection lag (all read models) p50 %d ms  p99 %d ms; %j',
        label,
        steady.achievedCommandsPerSec,
        target,
        steady.lagP50Ms,
        steady.lagP99Ms,
        steady,
      );
      console.log(
        'command acknowledged -> visible in a consistent read (bets list), at that load: p50 %d ms  p99 %d ms (%d samples, %d stale)',
        round(percentile(visible, 50)),
        round(percentile(visible, 99)),
        visible.length,
        staleReads,
      );
      report[`lagPerReadModelAt${key[0]!.toUpperCase()}${key.slice(1)}`] = lagTable(label);
    };
    // The aim's load: half the raw Node insert rate. Then half the ledger's own best rate, a load it can carry with room to spare.
    const bestRawRate = Math.max(...raw.map((r) => r.opsPerSec));
    await steadyPhase(Number(process.env.BENCH_STEADY_RATE ?? Math.round(bestRawRate / 2)), 'half the raw insert rate', 'steadyLoad');
    await steadyPhase(
      Math.round(Math.max(...commands.map((r) => r.opsPerSec)) / 2),
      "half the ledger's own best rate",
      'steadyLoadHalfLedger',
    );

    // What each read model costs: time in its statements per event handed to it, over the whole run.
    report.projectionCosts = projector
      .costs()
      .map((c) => ({ ...c, ms: round(c.ms), usPerEvent: round(c.events > 0 ? (c.ms * 1000) / c.events : 0, 1) }));
    console.log('projection costs (whole run; time in its statements / events it handled):');
    for (const c of report.projectionCosts as { name: string; events: number; statements: number; ms: number; usPerEvent: number }[]) {
      console.log('  %s %d events  %d statements  %d ms  %d us/event', c.name.padEnd(22), c.events, c.statements, c.ms, c.usPerEvent);
    }

    const bestRaw = Math.max(...raw.map((r) => r.opsPerSec));
    const bestLedger = Math.max(...commands.map((r) => r.opsPerSec));
    report.summary = { bestRawInsertsPerSec: bestRaw, bestLedgerCommandsPerSec: bestLedger, ratio: round(bestLedger / bestRaw) };
    console.log('summary: ledger %d commands/s = %d x raw Node inserts (%d/s)', bestLedger, round(bestLedger / bestRaw), bestRaw);
    await projector.stop();

    // As docker-compose.yml deploys it: the read models followed by a process of their own, on the same machine.
    const followers = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'ledger.followers.ts')], {
      env: { ...process.env, DATABASE_URL, BENCH_SCHEMA: schema },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((r) => followers.once('exit', r));
    try {
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: followers.stdout! }).on('line', (line) => line === 'following' && resolve());
        followers.once('exit', (code) => reject(new Error(`the followers' process exited with code ${code}`)));
      });
      /** Until every read model's stored checkpoint has passed the ledger's last append. */
      const caughtUp = async (): Promise<void> => {
        const head = ledger.internals.handler.lastPosition();
        for (;;) {
          const { rows } = await pool.query<{ name: string; position: string }>('SELECT name, position FROM projection_checkpoints');
          const stored = new Map(rows.map((r) => [r.name, parsePosition(r.position)]));
          if (allProjections.every((p) => comparePositions(stored.get(p.name) ?? START, head) >= 0)) return;
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      await caughtUp();
      console.log('ledger with every read model following in a process of its own: place bet + settle (2 commands per iteration)');
      const separate = [];
      const apartSpreads: BlockSpread[] = [];
      for (const c of LEVELS) {
        const blocks = [];
        for (let block = 1; block <= BLOCKS; block += 1) {
          const followersBefore = await processCpuMs(followers.pid!);
          const r = await pairs(c, { quiet: caughtUp });
          blocks.push(r);
          const followersAfter = await processCpuMs(followers.pid!);
          const commandsRun = Math.max(1, r.opsPerSec * SECONDS);
          const followersCpuUsPerCommand =
            followersBefore === undefined || followersAfter === undefined
              ? undefined
              : round(((followersAfter - followersBefore) * 1000) / commandsRun, 0);
          const caughtStart = performance.now();
          await caughtUp();
          const catchUpMs = round(performance.now() - caughtStart);
          separate.push({ ...blockFigures(block, c, r), catchUpMs, followersCpuUsPerCommand });
          console.log(
            '  c=%d  %d commands/s (%sx raw Node inserts at c=%d: %s/s; %s)  pair p50 %s ms; read models caught up %d ms after the load',
            c,
            r.opsPerSec,
            r.ratio ?? '?',
            c,
            r.rawAtC?.opsPerSec ?? '?',
            besideLine(r),
            r.p50Ms,
            catchUpMs,
          );
          console.log(
            "        CPU per command: this process %s µs, the followers' process %s µs (while the load ran), PostgreSQL %s µs",
            r.nodeCpuUsPerOp,
            followersCpuUsPerCommand ?? '?',
            r.postgresCpuUsPerOp ?? '?',
          );
        }
        if (BLOCKS > 1) apartSpreads.push(spreadOf(c, blocks));
      }
      report.ledgerCommandsFollowersApart = separate;
      glance.push({ row: 'in a process of their own', blocks: separate });
      if (BLOCKS > 1) report.blockSpreadsFollowersApart = apartSpreads;
    } finally {
      followers.kill('SIGTERM');
      await exited;
    }

    // As the service runs them beside its APIs (more roles than the projector in one process): on a thread of their own.
    process.env.LOG_LEVEL ??= 'warn';
    const names = allProjections.map((p) => p.name);
    // First a catch-up from the first event, as after a restart, while this thread's event loop is watched.
    await pool.query(`TRUNCATE ${[...new Set(allProjections.flatMap((p) => p.tables))].join(', ')}`);
    await pool.query('DELETE FROM projection_checkpoints');
    const threadLoop = monitorEventLoopDelay({ resolution: 1 });
    threadLoop.enable();
    const threadCatchUpFrom = performance.now();
    const thread = await startFollowersThread({
      databaseUrl: DATABASE_URL,
      schema,
      only: ['projector'],
      coalesceMs: COALESCE_MS,
      bus: createLocalBus(),
      logger: createLogger({ level: 'warn' }),
      readModels: names,
    });
    try {
      const threadCaughtUp = () => thread.waitForModels(names, ledger.internals.handler.lastPosition());
      await threadCaughtUp();
      threadLoop.disable();
      const threadCatchUpMs = performance.now() - threadCatchUpFrom;
      const total = Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n);
      const onThreadCatchUp = catchUpFigures(total, threadCatchUpMs, threadLoop);
      report.readModelsCatchUpOnThread = onThreadCatchUp;
      console.log(
        'read models catching up on a thread of this process on the %s events so far: %s ms (%s events/s), ' +
          "this thread's event loop delayed p99 %s ms, max %s ms",
        ...Object.values(onThreadCatchUp),
      );
      console.log('ledger with every read model following on a thread of this process, as the service runs them beside its APIs:');
      const onThread = [];
      const threadSpreads: BlockSpread[] = [];
      for (const c of LEVELS) {
        const blocks = [];
        for (let block = 1; block <= BLOCKS; block += 1) {
          const r = await pairs(c, { quiet: threadCaughtUp, profile: block === 1 ? 'thread' : undefined });
          blocks.push(r);
          onThread.push({ ...blockFigures(block, c, r), placeP50Ms: r.placeP50Ms, settleP50Ms: r.settleP50Ms });
          printRate(c, r);
          console.log(
            '        p50 per command: place bet %s ms, settle %s ms; %s (both threads, read models included); ' +
              'event loop of the commands delayed p99 %s ms, max %s ms',
            r.placeP50Ms,
            r.settleP50Ms,
            cpuLine(r),
            r.loopDelayP99Ms,
            r.loopDelayMaxMs,
          );
        }
        if (BLOCKS > 1) threadSpreads.push(spreadOf(c, blocks));
      }
      report.ledgerCommandsFollowersOnThread = onThread;
      glance.push({ row: 'on a thread, as the service runs them', blocks: onThread });
      if (BLOCKS > 1) report.blockSpreadsFollowersOnThread = threadSpreads;
    } finally {
      await thread.stop();
    }

    // A rebuild of every read model from the events of this run (truncate, replay to the head), and its counts checked.
    const rebuildStart = performance.now();
    const rebuilt = await rebuildProjections({
      store,
      pool,
      projections: allProjections,
      batchSize: Number(process.env.BENCH_REBUILD_BATCH ?? 5000),
    });
    const rebuildMs = performance.now() - rebuildStart;
    const mismatches = (await pool.query<{ n: string }>(COUNTS_CHECK_SQL)).rows.length;
    report.rebuild = {
      events: rebuilt.events,
      ms: round(rebuildMs),
      eventsPerSec: round(rebuilt.events / (rebuildMs / 1000), 0),
      countKeysDifferingFromCountStar: mismatches,
    };
    console.log(
      'rebuild of every read model: %d events in %d ms = %d events/s; count keys differing from count(*): %d',
      rebuilt.events,
      round(rebuildMs),
      round(rebuilt.events / (rebuildMs / 1000), 0),
      mismatches,
    );
    report.atAGlance = atAGlance(glance);
    for (const { concurrency, rows } of report.atAGlance as ReturnType<typeof atAGlance>) {
      const each = rows.map(({ row, ratioBeside: r }) => `${row} ${r.median}x (${r.min}-${r.max})`);
      console.log('at a glance, c=%d, median (range) ratio to the raw INSERT run beside each block: %s', concurrency, each.join('; '));
    }
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
