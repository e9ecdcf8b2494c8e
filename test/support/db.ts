import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPool, type PoolOptions } from '../../src/infra/pg.js';
import { TEST_DATABASE_URL } from './global-setup.js';

export { TEST_DATABASE_URL };

export type TestDb = Readonly<{
  schema: string;
  connectionString: string;
  /** A new pool on this test's schema (each call is independent, e.g. to simulate a second process). */
  pool: (options?: Partial<PoolOptions>) => pg.Pool;
  drop: () => Promise<void>;
}>;

/** A fresh, empty schema on the real test PostgreSQL, so test files can run in parallel. */
export const createTestDb = async (label = 'db'): Promise<TestDb> => {
  const schema = `t_${label.replace(/\W/g, '_').slice(0, 20)}_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.end();
  const pools: pg.Pool[] = [];
  return {
    schema,
    connectionString: TEST_DATABASE_URL,
    pool: (options) => {
      const p = createPool({ connectionString: TEST_DATABASE_URL, schema, max: 10, ...options });
      pools.push(p);
      return p;
    },
    drop: async () => {
      await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    },
  };
};
