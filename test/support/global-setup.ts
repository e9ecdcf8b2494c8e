import pg from 'pg';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Fails fast with a clear message when the test PostgreSQL is down, and drops schemas left by killed runs long ago. */
export default async function setup(): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`Tests need PostgreSQL at ${TEST_DATABASE_URL} (set TEST_DATABASE_URL): ${(error as Error).message}`);
  }
  // Schema names end in their creation time (see db.ts); drop those older than an hour (runs that were killed).
  const { rows } = await client.query<{ nspname: string }>(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%'`);
  const cutoff = Math.floor(Date.now() / 1000) - 3600;
  for (const r of rows) {
    const created = Number(/_(\d+)_[0-9a-f]+$/.exec(r.nspname)?.[1] ?? 0);
    if (created < cutoff) await client.query(`DROP SCHEMA IF EXISTS "${r.nspname}" CASCADE`);
  }
  await client.end();
}
