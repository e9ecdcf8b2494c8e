import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDb, type TestDb } from '../support/db.js';
import { inTransaction } from '../../src/infra/pg.js';

describe('a connection the server ends while it is checked out', () => {
  let db: TestDb;
  let pool: pg.Pool;
  let killer: pg.Pool;

  beforeAll(async () => {
    db = await createTestDb('connection_loss');
    pool = db.pool();
    killer = db.pool({ max: 1 });
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('when the server ends it between two statements of a transaction, then the transaction fails, the process lives and the pool serves on', async () => {
    for (let round = 0; round < 3; round += 1) {
      await expect(
        inTransaction(pool, async (client) => {
          const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          await killer.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
          // The error arrives while no query of this client runs: nothing but a listener would catch it.
          await new Promise((resolve) => setTimeout(resolve, 300));
          await client.query('SELECT 1');
        }),
      ).rejects.toThrow();
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
    }
  });
});
