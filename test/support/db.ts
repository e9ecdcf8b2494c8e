import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPool, type PoolOptions } from '../../src/infra/pg.js';
import { TEST_DATABASE_URL } from './global-setup.js';
import { startOwnPostgres, type OwnPostgres } from './own-services.js';

export { TEST_DATABASE_URL };

export type TestDb = Readonly<{
  schema: string;
  connectionString: string;
  /** A new pool on this test's schema (each call is independent, e.g. to simulate a second process). */
  pool: (options?: Partial<PoolOptions>) => pg.Pool;
  drop: () => Promise<void>;
}>;

export type TestDbOptions = Readonly<{
  /**
   * On a PostgreSQL cluster of this test file's own instead of the shared one. Readers of the PostgreSQL event store
   * see only commits below the oldest transaction still open anywhere in the cluster (every database and schema):
   * a test that holds a writing transaction open, or kills backends mid-transaction, would stall every other test
   * file's projectors, publishers and waiters for that long. Such tests take a cluster of their own.
   */
  ownCluster?: boolean;
}>;

/** One own cluster per test file (vitest loads this module once per file), shared by its schemas, gone with the last. */
let own: { cluster: Promise<OwnPostgres>; users: number } | undefined;
const acquireOwnCluster = async (): Promise<{ url: string; release: () => Promise<void> }> => {
  own ??= { cluster: startOwnPostgres(), users: 0 };
  const held = own;
  held.users += 1;
  const cluster = await held.cluster;
  return {
    url: cluster.url,
    release: async () => {
      held.users -= 1;
      if (held.users > 0) return;
      if (own === held) own = undefined;
      await cluster.destroy();
    },
  };
};

/** A fresh, empty schema on the real test PostgreSQL, so test files can run in parallel. */
export const createTestDb = async (label = 'db', options: TestDbOptions = {}): Promise<TestDb> => {
  const schema = `t_${label.replace(/\W/g, '_').slice(0, 20)}_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  const cluster = options.ownCluster ? await acquireOwnCluster() : undefined;
  const url = cluster?.url ?? TEST_DATABASE_URL;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.end();
  const pools: pg.Pool[] = [];
  return {
    schema,
    connectionString: url,
    pool: (poolOptions) => {
      const p = createPool({ connectionString: url, schema, max: 10, ...poolOptions });
      pools.push(p);
      return p;
    },
    drop: async () => {
      await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
      if (cluster) {
        await cluster.release();
        return;
      }
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    },
  };
};
