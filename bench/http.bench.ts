/**
 * npm run bench:http — a bet through HTTP (POST /internal/bets of one unit) on the service started as in production
 * (every role, default logging), next to a bare node:http route doing one INSERT of an event-sized row, in the same
 * run, on the same PostgreSQL: a cluster of the bench's own with pg_stat_statements, started under a temporary
 * directory. The load generator (node:http keep-alive connections) runs in a process of its own. Reported per concurrency
 * (BENCH_CONCURRENCY, default 4,32): bets/s, p50, p99 and the ratio to the bare route (with BENCH_BLOCKS above 1, the
 * medians of that many runs of both in turn); per bet, the statements that ran on the command path and on the
 * followers' side (projector, publisher, sealer) with their execution time, the time inside the
 * projector's batches by read model, and the CPU of the load generator, of the server (by thread) and of PostgreSQL;
 * the idle service's statement rate. With EVENTSTORE_CONNECTION_STRING set, the same rows for EVENT_STORE=eventstoredb.
 * Writes bench/results/http-<timestamp>.json. Not a test: nothing here asserts a timing.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { isRight } from 'fp-ts/lib/Either.js';
import pg from 'pg';
import { postgresCpuMs, postgresCpuSpent, processCpuMs, threadCpuMs, threadCpuSpent } from './lib/cpu.js';
import { createUsers } from '../src/commands/users.js';
import { createPostgresEventStore } from '../src/infra/event-store/postgres/postgres.event-store.js';
import { game } from './lib/game.js';

const run = promisify(execFile);
const PG_BIN = process.env.BENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const LEVELS = (process.env.BENCH_CONCURRENCY ?? '4,32').split(',').map(Number);
const PLAYERS = Number(process.env.BENCH_PLAYERS ?? 64);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 200);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
/** Runs of the bare route and the service at each concurrency, in turn; with more than one, the ratios are their medians. */
const BLOCKS = Math.max(1, Number(process.env.BENCH_BLOCKS ?? 1));
/**
 * Which service rows run: `all` (every role in one process), `apart` (the API, and the followers in a process of their
 * own, as docker-compose runs them), `api` (ROLES=public-api,admin-api alone: what the followers cost the rest).
 */
const ROWS = new Set((process.env.BENCH_ROWS ?? 'all,apart,api').split(','));
const TOKEN = randomBytes(24).toString('hex');
const CORES = availableParallelism();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** A PostgreSQL cluster of the bench's own (initdb refuses root: run as the postgres system user then). */
const startCluster = async (dir: string) => {
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  const as = (cmd: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(PG_BIN, cmd), ...args]) : run(join(PG_BIN, cmd), args);
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, 'pg');
  await as('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on -c pg_stat_statements.track=all -c max_connections=200`;
  await as('pg_ctl', ['-D', data, '-l', join(dir, 'pg.log'), '-o', options, '-w', 'start']);
  return {
    url: (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`,
    stop: () => as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).then(() => undefined),
  };
};

type Child = { child: ChildProcess; stop: () => Promise<void> };
const stopChild = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
};

/** A child process that is ready when `isReady(line)` holds for a line of its stdout; every other line is drained. */
const startChild = (name: string, args: string[], env: Record<string, string>, isReady: (line: string) => boolean): Promise<Child> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...(process.env.BENCH_PROFILE_DIR && name === 'service' ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []),
        '--import',
        'tsx',
        ...args,
      ],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (isReady(line)) resolve({ child, stop: () => stopChild(child) });
      if (line.includes('"level":"error"') || line.includes('"level":"fatal"')) process.stderr.write(`[${name}] ${line.slice(0, 400)}\n`);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with code ${code} before it was ready`)));
  });

const startService = async (databaseUrl: string, dataDir: string, extra: Record<string, string>) => {
  const [publicPort, adminPort, wsPort] = [await freePort(), await freePort(), await freePort()];
  // As in production: every role, the default LOG_LEVEL (every request logged), stdout read by the parent.
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    INTERNAL_API_TOKEN: TOKEN,
    PUBLIC_PORT: String(publicPort),
    ADMIN_PORT: String(adminPort),
    WS_PORT: String(wsPort),
    APP_ENV: 'production',
    FRONTEND_ORIGIN: 'http://localhost:5173',
    LOG_LEVEL: '',
    ROLES: '',
    REDIS_URL: '',
    CAPTCHA_SECRET: 'bench-captcha-secret',
    ...extra,
  };
  // Production refuses to make keys: fill DATA_DIR/keys once, as a deployment does (`npm run keys`).
  await run(process.execPath, ['--import', 'tsx', 'scripts/keys.ts'], { env: { ...process.env, DATA_DIR: dataDir } });
  const service = await startChild('service', ['src/main.ts'], env, (line) => line.includes('"msg":"ready"'));
  return { ...service, adminUrl: `http://127.0.0.1:${adminPort}` };
};

type Load = {
  requestsPerSec: number;
  total: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  statuses: Record<string, number>;
  /** The load generator's own CPU over the run. */
  cpuMs: number;
};
/** The load generator in a process of its own. */
const load = async (url: string, connections: number, seconds: number, users: number[]): Promise<Load> => {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'bench/http.load.ts', JSON.stringify({ url, token: TOKEN, connections, seconds, users })],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Load;
};

/** Where a statement runs: on the command path (before the answer), the notify after the commit, or the followers. */
const COMMAND_PATH: readonly (readonly [string, RegExp])[] = [
  ['append (group commit, keys claimed in it)', /INSERT INTO events \(stream_id/],
  ['ban and limits read', /is_banned, l\.state|user_access a ON/],
  ['ledger keys (claim, owner)', /ledger_keys/],
  ['user exists / username', /FROM user_access WHERE user_id/],
  ['rates', /currency_rates/],
  ['append losers resolved', /FROM events WHERE event_id = ANY|FROM streams WHERE stream_id = ANY/],
  ['wallet stream read', /FROM events\s+WHERE stream_id = \$1/],
];
const NOTIFY = /pg_notify/;
type StatementRow = { query: string; calls: string; total_exec_time: number; total_plan_time: number; toplevel: boolean };
type Side = { statements: number; ms: number; planMs: number; rows: { what: string; perBet: number; msPerBet: number }[] };

const readStatements = async (admin: pg.Pool): Promise<StatementRow[]> =>
  (
    await admin.query<StatementRow>(`SELECT s.query, s.calls, s.total_exec_time, s.total_plan_time, s.toplevel FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
    WHERE d.datname = 'ledger' AND s.query NOT ILIKE '%pg_stat_statements%'`)
  ).rows;

/**
 * The read model a statement run inside the projector's batch function writes (its counts table is its list's), or
 * the batch's own reads: its arguments unpacked, locks, the checkpoint check (its move shows as projection_checkpoints).
 */
const readModelOf = (query: string): string => {
  const table = /(?:INSERT INTO|UPDATE|DELETE FROM)\s+(\w+)/i.exec(query)?.[1];
  return table ? table.replace(/_counts$/, '') : "the batch's own reads (arguments, locks, the checkpoint check)";
};

/** Statements inside the projector's batches (pg_stat_statements.track=all), by the table they write: ms per bet. */
const byReadModel = (rows: readonly StatementRow[], per: number) => {
  const ms = new Map<string, number>();
  for (const r of rows.filter((x) => !x.toplevel)) {
    const table = readModelOf(r.query);
    ms.set(table, (ms.get(table) ?? 0) + r.total_exec_time);
  }
  return [...ms]
    .map(([table, total]) => ({ table, msPerBet: round(total / per, 3) }))
    .filter((x) => x.msPerBet > 0)
    .sort((a, b) => b.msPerBet - a.msPerBet);
};

const split = (all: readonly StatementRow[], per: number, idleCallsPerSecond = 0, seconds = 0) => {
  const command = new Map<string, { calls: number; ms: number; planMs: number }>();
  const followers = { calls: 0, ms: 0, top: [] as { query: string; calls: number; ms: number }[] };
  let notify = 0;
  // Statements run inside a function are counted in their caller's time, and apart by read model below.
  const rows = all.filter((r) => r.toplevel);
  for (const r of rows) {
    const calls = Number(r.calls);
    if (NOTIFY.test(r.query)) {
      notify += calls;
      continue;
    }
    const hit = COMMAND_PATH.find(([, re]) => re.test(r.query));
    if (hit) {
      const c = command.get(hit[0]) ?? { calls: 0, ms: 0, planMs: 0 };
      command.set(hit[0], { calls: c.calls + calls, ms: c.ms + r.total_exec_time, planMs: c.planMs + r.total_plan_time });
    } else {
      followers.calls += calls;
      followers.ms += r.total_exec_time;
      followers.top.push({ query: r.query.replace(/\s+/g, ' ').slice(0, 90), calls, ms: r.total_exec_time });
    }
  }
  const commandSide: Side = {
    statements: round([...command.values()].reduce((a, c) => a + c.calls, 0) / per),
    ms: round([...command.values()].reduce((a, c) => a + c.ms, 0) / per, 3),
    planMs: round([...command.values()].reduce((a, c) => a + c.planMs, 0) / per, 3),
    rows: [...command].map(([what, c]) => ({ what, perBet: round(c.calls / per), msPerBet: round(c.ms / per, 3) })),
  };
  const followerCalls = Math.max(0, followers.calls - idleCallsPerSecond * seconds);
  return {
    commandPath: commandSide,
    notifyPerBet: round(notify / per),
    followers: {
      statements: round(followerCalls / per),
      ms: round(followers.ms / per, 3),
      top: followers.top
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 8)
        .map(({ query, calls, ms }) => ({ query, calls, perBet: round(calls / per), msPerBet: round(ms / per, 3) })),
      byReadModel: byReadModel(all, per),
    },
  };
};

/** CPU ms a process has used so far (0 where /proc cannot be read). */
const cpuMs = async (pid: number): Promise<number> => (await processCpuMs(pid)) ?? 0;

/** A load run, with the CPU the target process and PostgreSQL used per request (less noisy than wall time on a shared machine). */
const measured = async (pid: number, url: string, connections: number, seconds: number, users: number[]) => {
  const before = await cpuMs(pid);
  const threadsBefore = await threadCpuMs(pid);
  const pgBefore = await postgresCpuMs();
  const result = await load(url, connections, seconds, users);
  const per = Math.max(1, result.total);
  const cpuMsPerBet = round(((await cpuMs(pid)) - before) / per, 3);
  const threads = threadCpuSpent(pid, threadsBefore, await threadCpuMs(pid));
  const threadsMsPerBet = {
    main: round(threads.main / per, 3),
    busiestOther: round(threads.busiestOther / per, 3),
    rest: round(threads.rest / per, 3),
  };
  const pgSpent = postgresCpuSpent(pgBefore, await postgresCpuMs());
  const postgresCpuMsPerBet = pgSpent === undefined ? undefined : round(pgSpent / per, 3);
  const loadCpuMsPerBet = round(result.cpuMs / per, 3);
  // Everything the machine ran for a bet: a CPU-bound run's rate is at most the cores over this.
  const machineCpuMsPerBet = postgresCpuMsPerBet === undefined ? undefined : round(cpuMsPerBet + postgresCpuMsPerBet + loadCpuMsPerBet, 3);
  return { ...result, cpuMsPerBet, threadsMsPerBet, postgresCpuMsPerBet, loadCpuMsPerBet, machineCpuMsPerBet };
};

const post = async (url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': TOKEN },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const main = async (): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-http-'));
  const cluster = await startCluster(dir);
  const children: Child[] = [];
  const report: Record<string, unknown> = {
    at: new Date().toISOString(),
    seconds: SECONDS,
    players: PLAYERS,
    levels: LEVELS,
    sequentialBets: SEQUENTIAL,
  };
  const admin = new pg.Pool({ connectionString: cluster.url('postgres'), max: 2 });
  admin.on('error', () => undefined); // the cluster stops at the end under its idle connections
  try {
    await admin.query('CREATE DATABASE ledger');
    await admin.query('CREATE DATABASE bare');
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const dataDir = join(dir, 'data');
    await mkdir(dataDir, { recursive: true });

    const barePort = await freePort();
    const bare = await startChild(
      'bare',
      ['bench/http.bare.ts'],
      { BARE_DATABASE_URL: cluster.url('bare'), BARE_PORT: String(barePort) },
      (l) => l === 'ready',
    );
    children.push(bare);
    const bareUrl = `http://127.0.0.1:${barePort}/bets`;

    // The command path alone (no projector, publisher, sealer in the process) shows what the followers cost the rest.
    const api = { EVENT_STORE: 'postgres', ROLES: 'public-api,admin-api' };
    const stores: { name: string; env: Record<string, string>; followers?: Record<string, string> }[] = [
      ...(ROWS.has('all') ? [{ name: 'postgres', env: { EVENT_STORE: 'postgres' } }] : []),
      ...(ROWS.has('apart')
        ? [
            {
              name: 'postgres, ROLES=public-api,admin-api, and ROLES=projector,scheduler in a process of its own',
              env: api,
              followers: { EVENT_STORE: 'postgres', ROLES: 'projector,scheduler' },
            },
          ]
        : []),
      ...(ROWS.has('api') ? [{ name: 'postgres, ROLES=public-api,admin-api', env: api }] : []),
    ];
    if (process.env.EVENTSTORE_CONNECTION_STRING) {
      stores.push({
        name: 'eventstoredb',
        env: { EVENT_STORE: 'eventstoredb', EVENTSTORE_CONNECTION_STRING: process.env.EVENTSTORE_CONNECTION_STRING },
      });
    }
    const rows: Record<string, unknown>[] = [];
    for (const [index, s] of stores.entries()) {
      const service = await startService(cluster.url('ledger'), dataDir, s.env);
      children.push(service);
      const followers = s.followers ? await startService(cluster.url('ledger'), dataDir, s.followers) : undefined;
      if (followers) children.push(followers);
      const betsUrl = `${service.adminUrl}/internal/bets`;

      // Players: registered through the users aggregate (same database), funded through the internal API.
      const pool = new pg.Pool({ connectionString: cluster.url('ledger'), max: 4 });
      pool.on('error', () => undefined);
      const users = createUsers({ store: createPostgresEventStore({ pool }), pool });
      const players: number[] = [];
      for (let i = 0; i < PLAYERS; i += 1) {
        const name = `b${index}p${i}`;
        const registered = await users.register({
          email: `${name}@bench.test`,
          username: name,
          passwordHash: 'x',
          country: 'DE',
          referrerCode: null,
          marketingOptIn: false,
          provider: 'password',
          registration: { ip: null, userAgent: null, country: null, referrer: null },
        });
        if (!isRight(registered)) throw new Error(`register ${name}: ${JSON.stringify(registered.left)}`);
        const userId = registered.right.userId;
        const dep = await post(`${service.adminUrl}/internal/deposits`, {
          externalId: `fund-${name}`,
          userId,
          providerId: 'TEST',
          networkId: 'ETH',
          currencyId: 'USDT',
          amount: '100000000',
        });
        if (dep.status !== 201) throw new Error(`deposit ${name}: ${dep.status} ${JSON.stringify(dep.body)}`);
        const done = await post(`${service.adminUrl}/internal/deposits/${String(dep.body.id)}/complete`, {});
        if (done.status !== 200) throw new Error(`complete ${name}: ${done.status} ${JSON.stringify(done.body)}`);
        players.push(userId);
      }
      await pool.end();
      console.log(`\n== ${s.name}: service up, ${PLAYERS} players funded`);
      await load(betsUrl, 4, 3, players); // warm-up: JIT, caches, pool connections

      // Idle: no traffic at all, every statement counted.
      await sleep(2_000);
      await admin.query('SELECT pg_stat_statements_reset()');
      await sleep(IDLE_SECONDS * 1000);
      const idleCalls = (await readStatements(admin)).filter((r) => r.toplevel).reduce((a, r) => a + Number(r.calls), 0);
      const idlePerSecond = round(idleCalls / IDLE_SECONDS);

      // Sequential bets: statements per bet on each side (followers net of the idle rate over the same window).
      await admin.query('SELECT pg_stat_statements_reset()');
      const t0 = performance.now();
      for (let i = 0; i < SEQUENTIAL; i += 1) {
        const r = await post(betsUrl, {
          id: `seq-${index}-${i}`,
          userId: players[i % players.length],
          roundId: `seq-${i}`,
          gameId: 7,
          gameIdentity: game,
          currencyId: 'USDT',
          amount: '1',
        });
        if (r.status !== 201) throw new Error(`sequential bet: ${r.status} ${JSON.stringify(r.body)}`);
      }
      const sequentialMs = (performance.now() - t0) / SEQUENTIAL;
      await sleep(2_000); // let the followers take the last bets
      const windowSeconds = (performance.now() - t0) / 1000;
      const perBet = split(await readStatements(admin), SEQUENTIAL, idlePerSecond, windowSeconds);
      // The same client (this process's fetch) on the bare route: what of the figure above is the client's own.
      const b0 = performance.now();
      for (let i = 0; i < SEQUENTIAL; i += 1) await post(bareUrl, { id: `seq-bare-${index}-${i}`, userId: players[i % players.length] });
      const bareSequentialMs = (performance.now() - b0) / SEQUENTIAL;
      console.log(
        `sequential bet through HTTP: ${round(sequentialMs)} ms end to end (the bare route with the same client: ${round(bareSequentialMs)} ms)`,
      );
      const path = perBet.commandPath;
      console.log(`command path: ${path.statements} statements per bet, ${path.planMs} ms of planning, ${path.ms} ms of execution`);
      for (const r of perBet.commandPath.rows) console.log(`  ${r.what.padEnd(44)} ${String(r.perBet).padStart(5)} /bet  ${r.msPerBet} ms`);
      console.log(`  NOTIFY after the commit (rate-limited)      ${String(perBet.notifyPerBet).padStart(5)} /bet`);
      console.log(
        `followers: ${perBet.followers.statements} statements per bet beyond the idle rate, ${perBet.followers.ms} ms of execution`,
      );
      console.log(`idle service: ${idlePerSecond} statements/s`);

      const levels = [];
      const serviceRunAt = async (c: number) => {
        await admin.query('SELECT pg_stat_statements_reset()');
        const followersBefore = followers ? await cpuMs(followers.child.pid!) : 0;
        const serviceRun = await measured(service.child.pid!, betsUrl, c, SECONDS, players);
        const followersCpuMsPerBet = followers
          ? round(((await cpuMs(followers.child.pid!)) - followersBefore) / Math.max(1, serviceRun.total), 3)
          : undefined;
        const underLoad = split(await readStatements(admin), Math.max(1, serviceRun.total));
        return { serviceRun, followersCpuMsPerBet, underLoad };
      };
      const blockAt = async (c: number, block: number) => {
        // Every other block runs the service first, so that a drift of the machine's speed weighs on both routes alike.
        const serviceFirst = block % 2 === 1 ? await serviceRunAt(c) : undefined;
        const bareRun = await measured(bare.child.pid!, bareUrl, c, SECONDS, players);
        const { serviceRun, followersCpuMsPerBet, underLoad } = serviceFirst ?? (await serviceRunAt(c));
        return {
          concurrency: c,
          bare: {
            betsPerSec: round(bareRun.requestsPerSec, 0),
            p50Ms: bareRun.p50Ms,
            p99Ms: bareRun.p99Ms,
            cpuMsPerBet: bareRun.cpuMsPerBet,
            postgresCpuMsPerBet: bareRun.postgresCpuMsPerBet,
            loadGeneratorCpuMsPerBet: bareRun.loadCpuMsPerBet,
            machineCpuMsPerBet: bareRun.machineCpuMsPerBet,
            non2xx: bareRun.non2xx,
            errors: bareRun.errors,
          },
          service: {
            betsPerSec: round(serviceRun.requestsPerSec, 0),
            p50Ms: serviceRun.p50Ms,
            p99Ms: serviceRun.p99Ms,
            cpuMsPerBet: serviceRun.cpuMsPerBet,
            threadsCpuMsPerBet: serviceRun.threadsMsPerBet,
            postgresCpuMsPerBet: serviceRun.postgresCpuMsPerBet,
            loadGeneratorCpuMsPerBet: serviceRun.loadCpuMsPerBet,
            // With the followers in a process of their own, theirs too.
            machineCpuMsPerBet:
              serviceRun.machineCpuMsPerBet === undefined
                ? undefined
                : round(serviceRun.machineCpuMsPerBet + (followersCpuMsPerBet ?? 0), 3),
            ...(followersCpuMsPerBet === undefined ? {} : { followersProcessCpuMsPerBet: followersCpuMsPerBet }),
            non2xx: serviceRun.non2xx,
            errors: serviceRun.errors,
          },
          statementsPerBet: {
            commandPath: underLoad.commandPath.statements,
            commandPathMs: underLoad.commandPath.ms,
            commandPathPlanMs: underLoad.commandPath.planMs,
            appendMeanMs: round(underLoad.commandPath.ms / Math.max(0.001, underLoad.commandPath.statements), 3),
            notify: underLoad.notifyPerBet,
            followers: underLoad.followers.statements,
            followersMs: underLoad.followers.ms,
            followersTop: underLoad.followers.top,
            followersByReadModel: underLoad.followers.byReadModel,
          },
          throughputRatio: round(serviceRun.requestsPerSec / bareRun.requestsPerSec),
          p50Ratio: round(serviceRun.p50Ms / bareRun.p50Ms),
        };
      };
      for (const c of LEVELS) {
        const blocks = [];
        for (let block = 0; block < BLOCKS; block += 1) blocks.push(await blockAt(c, block));
        const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
        const throughputRatio = median(blocks.map((b) => b.throughputRatio));
        // The details printed and saved are the block whose throughput ratio is the median.
        const row = {
          ...blocks.find((b) => b.throughputRatio === throughputRatio)!,
          throughputRatio,
          p50Ratio: median(blocks.map((b) => b.p50Ratio)),
          ...(BLOCKS > 1
            ? {
                blocks: blocks.map((b) => ({
                  bareBetsPerSec: b.bare.betsPerSec,
                  serviceBetsPerSec: b.service.betsPerSec,
                  throughputRatio: b.throughputRatio,
                  p50Ratio: b.p50Ratio,
                })),
              }
            : {}),
        };
        levels.push(row);
        console.log(
          `c=${String(c).padEnd(3)} bare ${String(row.bare.betsPerSec).padStart(6)}/s p50 ${row.bare.p50Ms} ms p99 ${row.bare.p99Ms} ms | ` +
            `service ${String(row.service.betsPerSec).padStart(6)}/s p50 ${row.service.p50Ms} ms p99 ${row.service.p99Ms} ms | ` +
            `ratio ${row.throughputRatio}x bets/s, p50 ${row.p50Ratio}x`,
        );
        if (BLOCKS > 1) {
          const range = (values: number[]) => `${Math.min(...values)}-${Math.max(...values)}`;
          console.log(
            `       ${BLOCKS} blocks in turn, medians above (the rest of this row is the median block's): ratio ${range(blocks.map((b) => b.throughputRatio))}x bets/s, ` +
              `p50 ${range(blocks.map((b) => b.p50Ratio))}x; bare ${blocks.map((b) => b.bare.betsPerSec).join(', ')}/s, service ${blocks.map((b) => b.service.betsPerSec).join(', ')}/s`,
          );
        }
        const failed = row.service.non2xx + row.service.errors > 0 ? ` (${row.service.non2xx} non-2xx, ${row.service.errors} errors)` : '';
        const followersCpu = 'followersProcessCpuMsPerBet' in row.service ? row.service.followersProcessCpuMsPerBet : undefined;
        const apart = followersCpu === undefined ? '' : ` (+ ${followersCpu} ms in the followers' process)`;
        console.log(
          `       CPU per bet: bare ${row.bare.cpuMsPerBet} ms, service ${row.service.cpuMsPerBet} ms${apart}; ` +
            `PostgreSQL ${row.bare.postgresCpuMsPerBet ?? '?'} ms with the bare route, ${row.service.postgresCpuMsPerBet ?? '?'} ms with the service${failed}`,
        );
        const st = row.statementsPerBet;
        console.log(
          `       under load, per bet: command path ${st.commandPath} statements (plan ${st.commandPathPlanMs} ms, run ${st.commandPathMs} ms), notify ${st.notify}, ` +
            `followers ${st.followers} statements (${st.followersMs} ms)`,
        );
        for (const t of st.followersTop.slice(0, 4)) {
          console.log(`         ${String(t.perBet).padStart(5)} /bet ${String(t.msPerBet).padStart(6)} ms  ${t.query.slice(0, 70)}`);
        }
        const [bareAll, serviceAll] = [row.bare.machineCpuMsPerBet, row.service.machineCpuMsPerBet];
        if (bareAll !== undefined && serviceAll !== undefined) {
          const busy = (msPerBet: number, perSec: number) => round((msPerBet * perSec) / 1000, 2);
          console.log(
            `       CPU per bet on the whole machine (load generator + server + PostgreSQL): bare ${bareAll} ms, service ${serviceAll} ms ` +
              `(ratio ${round(bareAll / serviceAll)}); cores busy: bare ${busy(bareAll, row.bare.betsPerSec)}, service ${busy(serviceAll, row.service.betsPerSec)} of ${CORES} cores`,
          );
        }
        const th = row.service.threadsCpuMsPerBet;
        console.log(
          `       the service's CPU per bet by thread: main ${th.main} ms, the busiest other (the followers' thread where it runs) ${th.busiestOther} ms, ` +
            `the rest (GC and compiler helpers, libuv) ${th.rest} ms`,
        );
        if (st.followersByReadModel.length > 0) {
          const parts = st.followersByReadModel.slice(0, 8).map((x) => `${x.table} ${x.msPerBet}`);
          console.log(`       inside the projector's batches, ms per bet by table written: ${parts.join(', ')}`);
        }
      }
      rows.push({
        store: s.name,
        sequentialMsPerBet: round(sequentialMs),
        bareSequentialMsPerBet: round(bareSequentialMs),
        idleStatementsPerSecond: idlePerSecond,
        perBet,
        levels,
      });
      for (const child of followers ? [service, followers] : [service]) {
        await child.stop();
        children.splice(children.indexOf(child), 1);
      }
    }
    report.stores = rows;
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/http-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nreport: ${file}`);
  } catch (error) {
    console.error('bench:http failed:', error);
    process.exitCode = 1;
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await admin.end();
    await cluster.stop().catch((error: unknown) => console.error('stopping the bench cluster:', error));
    await rm(dir, { recursive: true, force: true });
  }
};

await main();
