import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListsEnv, type ListsEnv } from '../support/lists-seed.js';

let w: ListsEnv;
beforeAll(async () => {
  w = await createListsEnv('world_wait');
}, 60_000);
afterAll(async () => {
  await w.env.close();
});

describe("the back-office test world's caughtUp", () => {
  it('when a transaction elsewhere in the cluster is open while a user registers, then caughtUp waits until that user is projected', async () => {
    // What another test file's transaction does to the store's head: it stays below the oldest xid still running.
    const other = await w.env.pool.connect();
    let caught = false;
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_current_xact_id()');
      const late = await w.env.makeUser({ username: 'waitLate' });
      const waiting = w.caughtUp().then(() => (caught = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(caught).toBe(false); // the user's event cannot be seen yet, so neither can it be projected
      await other.query('ROLLBACK');
      await waiting;
      const { rows } = await w.env.pool.query('SELECT username FROM users WHERE id = $1', [late.id]);
      expect(rows).toEqual([{ username: 'waitLate' }]);
    } finally {
      other.release();
    }
  });
});
