import pg from 'pg';
import { startOwnPostgres } from './own-services.js';

/**
 * Where the suite's schemas live. Unless TEST_DATABASE_URL names one, the global setup starts a PostgreSQL cluster of
 * the suite's own (free port, torn down at the end) and hands its URL to the test workers through this variable.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * The suite runs on a cluster of its own: the event store's readers see only commits below the oldest transaction
 * open anywhere in the cluster, and the machine's shared server also serves benchmarks, a running app or other
 * checkouts' suites (their long transactions stalled our projectors; their connections used up max_connections).
 * TEST_DATABASE_URL=postgres://... runs the suite on that server instead (schemas are per test file either way).
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE_URL) return checkShared(process.env.TEST_DATABASE_URL);
  const own = await startOwnPostgres();
  const admin = new pg.Client({ connectionString: own.url });
  await admin.connect();
  await admin.query('CREATE DATABASE test');
  await admin.end();
  process.env.TEST_DATABASE_URL = own.url.replace(/\/postgres$/, '/test');
  return async () => {
    await own.destroy();
  };
}

/** Fails fast with a clear message when the given PostgreSQL is down, and drops schemas left by killed runs long ago. */
const checkShared = async (url: string): Promise<undefined> => {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`Tests need PostgreSQL at ${url} (TEST_DATABASE_URL): ${(error as Error).message}`);
  }
  // Schema names end in their creation time (see db.ts); drop those older than an hour (runs that were killed).
  const { rows } = await client.query<{ nspname: string }>(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%'`);
  const cutoff = Math.floor(Date.now() / 1000) - 3600;
  for (const r of rows) {
    const created = Number(/_(\d+)_[0-9a-f]+$/.exec(r.nspname)?.[1] ?? 0);
    if (created < cutoff) await client.query(`DROP SCHEMA IF EXISTS "${r.nspname}" CASCADE`);
  }
  await client.end();
  return undefined;
};
