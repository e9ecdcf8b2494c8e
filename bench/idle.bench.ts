/**
 * npm run bench:idle — SQL statements per second of an idle service (every role, one process), counted by
 * pg_stat_statements on a PostgreSQL cluster of its own (initdb on a free port, the extension preloaded), next to
 * the same window with no service connected (the baseline: the bench's own reads). Nothing is sent to the service:
 * what it runs is its followers waiting for events, the sealer's checkpoint tick, the scheduler and the gateway.
 * Writes bench/results/idle-<timestamp>.json. Not a test: nothing here asserts a figure.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const WARM_SECONDS = Number(process.env.BENCH_IDLE_WARM ?? 10);
const WINDOW_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 20);

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** PostgreSQL refuses to run as root: as root, its tools run as the postgres user. */
const pgTool = (tool: string, args: string[]): void => {
  const asRoot = process.getuid?.() === 0;
  execFileSync(asRoot ? 'runuser' : `${BIN}/${tool}`, asRoot ? ['-u', 'postgres', '--', `${BIN}/${tool}`, ...args] : args, {
    stdio: 'ignore',
  });
};

type Row = { query: string; calls: string };
/** Calls per statement text, without the bench's own statements. */
const snapshot = async (client: pg.Client): Promise<Map<string, number>> => {
  const { rows } = await client.query<Row>(`SELECT query, calls FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'`);
  return new Map(rows.map((r) => [r.query, Number(r.calls)]));
};
const delta = (a: Map<string, number>, b: Map<string, number>): [string, number][] =>
  [...b]
    .map(([q, n]): [string, number] => [q, n - (a.get(q) ?? 0)])
    .filter(([, n]) => n > 0)
    .sort((x, y) => y[1] - x[1]);

const measure = async (client: pg.Client, seconds: number) => {
  const before = await snapshot(client);
  await sleep(seconds * 1000);
  const d = delta(before, await snapshot(client));
  const total = d.reduce((s, [, n]) => s + n, 0);
  return {
    statements: total,
    perSecond: Math.round((total / seconds) * 100) / 100,
    top: d.slice(0, 8).map(([q, n]) => ({ calls: n, query: q.replace(/\s+/g, ' ').slice(0, 160) })),
  };
};

const main = async (): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), 'idle-bench-'));
  const port = await freePort();
  const data = join(dir, 'pg');
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  pgTool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  pgTool('pg_ctl', [
    '-D',
    data,
    '-l',
    join(dir, 'pg.log'),
    '-w',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all`,
    'start',
  ]);
  let service: ChildProcess | undefined;
  const report: Record<string, unknown> = { at: new Date().toISOString(), warmSeconds: WARM_SECONDS, windowSeconds: WINDOW_SECONDS };
  try {
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE EXTENSION pg_stat_statements');
    console.log('baseline: %d s with no service connected', WINDOW_SECONDS);
    report.baseline = await measure(client, WINDOW_SECONDS);
    console.log('  %d statements/s', (report.baseline as { perSecond: number }).perSecond);

    service = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        ...process.env,
        DATABASE_URL: url,
        PUBLIC_PORT: '0',
        ADMIN_PORT: '0',
        WS_PORT: '0',
        DATA_DIR: join(dir, 'data'),
        LOG_LEVEL: 'info',
        REDIS_URL: '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      service!.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('"msg":"ready"')) resolve();
      });
      service!.on('exit', (code) => reject(new Error(`service exited (${code}) before ready:\n${out.slice(-2000)}`)));
    });
    console.log('service ready (all roles); %d s to settle, then %d s measured', WARM_SECONDS, WINDOW_SECONDS);
    await sleep(WARM_SECONDS * 1000);
    report.idleService = await measure(client, WINDOW_SECONDS);
    const idle = report.idleService as { perSecond: number; top: { calls: number; query: string }[] };
    console.log(
      'idle service: %d statements/s (baseline %d/s); most called:',
      idle.perSecond,
      (report.baseline as { perSecond: number }).perSecond,
    );
    for (const t of idle.top) console.log('  %d  %s', t.calls, t.query);
    await client.end();
  } finally {
    service?.kill('SIGTERM');
    await new Promise((r) => (service && service.exitCode === null ? service.once('exit', r) : r(undefined)));
    pgTool('pg_ctl', ['-D', data, '-m', 'fast', 'stop']);
    await rm(dir, { recursive: true, force: true });
  }
  await mkdir('bench/results', { recursive: true });
  const file = `bench/results/idle-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log('report: %s', file);
};

await main();
