import type pg from 'pg';
import { inTransaction } from './pg.js';

/** A forward-only schema change. Ids sort in application order; applied ids are never edited. */
export type Migration = Readonly<{ id: string; sql: string }>;

/** Applies pending migrations, each in its own transaction, under an advisory lock so concurrent starts do not race. */
export const migrate = async (pool: pg.Pool, migrations: readonly Migration[]): Promise<string[]> => {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    // A schema change on a large table, or the wait for another process's, may outlast any request's statement timeout.
    await client.query('SET statement_timeout = 0');
    await client.query(`SELECT pg_advisory_lock(hashtext(current_schema() || ':migrations'))`);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ id: string }>('SELECT id FROM schema_migrations');
    const done = new Set(rows.map((r) => r.id));
    for (const m of [...migrations].sort((a, b) => a.id.localeCompare(b.id))) {
      if (done.has(m.id)) continue;
      await inTransaction(
        pool,
        async (c) => {
          await c.query(m.sql);
          await c.query('INSERT INTO schema_migrations (id) VALUES ($1)', [m.id]);
        },
        { client },
      ).catch((error: unknown) => {
        throw new Error(`migration ${m.id} failed: ${(error as Error).message}`, { cause: error });
      });
      applied.push(m.id);
    }
  } finally {
    await client.query(`SELECT pg_advisory_unlock(hashtext(current_schema() || ':migrations'))`).catch(() => undefined);
    await client.query('RESET statement_timeout').catch(() => undefined);
    client.release();
  }
  return applied;
};
