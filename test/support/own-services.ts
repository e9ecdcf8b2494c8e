import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A PostgreSQL cluster and a Redis server of the test's own, on free ports: fault tests stop and restart
 * them, which the machine's shared servers must never suffer. We run as root, so PostgreSQL runs as `postgres`.
 */
const run = promisify(execFile);
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const PG_USER = 'postgres';

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const asPostgres = (args: string[]): [string, string[]] =>
  process.getuid?.() === 0 ? ['runuser', ['-u', PG_USER, '--', ...args]] : [args[0]!, args.slice(1)];

const pgCommand = async (args: string[]): Promise<string> => {
  const [cmd, rest] = asPostgres(args);
  const { stdout } = await run(cmd, rest, { timeout: 60_000 });
  return stdout;
};

export type OwnPostgres = Readonly<{
  port: number;
  url: string;
  start: () => Promise<void>;
  /** Fast shutdown (every backend ended, no checkpoint wait beyond the usual). */
  stop: () => Promise<void>;
  restart: () => Promise<void>;
  destroy: () => Promise<void>;
}>;

export const startOwnPostgres = async (): Promise<OwnPostgres> => {
  const dir = mkdtempSync(join(tmpdir(), 'own-pg-'));
  if (process.getuid?.() === 0) {
    const { uid, gid } = await idsOf(PG_USER);
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  await pgCommand([`${PG_BIN}/initdb`, '-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 -c shared_buffers=32MB`;
  const ctl = (action: string) =>
    pgCommand([`${PG_BIN}/pg_ctl`, '-D', data, '-w', '-t', '60', '-m', 'fast', '-o', opts, '-l', join(dir, 'log'), action]);
  await ctl('start');
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: async () => {
      await ctl('start');
    },
    stop: async () => {
      await ctl('stop');
    },
    restart: async () => {
      await ctl('restart');
    },
    destroy: async () => {
      await ctl('stop').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

const idsOf = async (user: string): Promise<{ uid: number; gid: number }> => {
  const uid = Number((await run('id', ['-u', user])).stdout.trim());
  const gid = Number((await run('id', ['-g', user])).stdout.trim());
  return { uid, gid };
};

export type OwnRedis = Readonly<{
  port: number;
  url: string;
  start: () => Promise<void>;
  stop: () => Promise<void>;
  destroy: () => Promise<void>;
}>;

export const startOwnRedis = async (): Promise<OwnRedis> => {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const c = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = c;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      c.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('Ready to accept connections')) resolve();
      });
      c.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out.slice(-500)}`)));
    });
  };
  const stop = async (): Promise<void> => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, start, stop, destroy: stop };
};
