import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createTestDb, type TestDb } from '../support/db.js';
import { applyStatements } from '../../src/projections/apply-statements.js';
import { migrateReadSide } from '../../src/schema.js';

describe("a projector batch's statements in one round trip", () => {
  let db: TestDb;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDb('apply_statements');
    pool = db.pool();
    await migrateReadSide(pool);
    await pool.query('CREATE TABLE applied (seq serial PRIMARY KEY, label text, tags text[], doc jsonb, n numeric, flag boolean)');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('when cast and uncast statements are mixed, then each runs once, in order, with its values intact, and its time is reported', async () => {
    const awkward = ['a"b', 'back\\slash', 'comma,brace}', 'NULL', ''];
    const client = await pool.connect();
    const took = await applyStatements(client, [
      { text: 'INSERT INTO applied (label, tags) VALUES ($1::text, $2::text[])', values: ['first', awkward] },
      { text: 'INSERT INTO applied (label, doc, n) VALUES ($1::text, $2::jsonb, $3::numeric)', values: ['second', '{"x":[1,"é"]}', '0.1'] },
      // Uncast: its types come from the driver, so it runs on its own between the others.
      { text: 'INSERT INTO applied (label, flag) VALUES ($1, $2)', values: ['third', true] },
      { text: 'INSERT INTO applied (label, n) VALUES ($1::text, $2::numeric)', values: ['fourth', null] },
      { text: "UPDATE applied SET label = label || '!' WHERE label = 'fourth'", values: [] },
    ]).finally(() => client.release());
    expect(took).toHaveLength(5);
    expect(took.every((ms) => ms >= 0)).toBe(true);
    const { rows } = await pool.query('SELECT label, tags, doc, n::text AS n, flag FROM applied ORDER BY seq');
    expect(rows).toEqual([
      { label: 'first', tags: awkward, doc: null, n: null, flag: null },
      { label: 'second', tags: null, doc: { x: [1, 'é'] }, n: '0.1', flag: null },
      { label: 'third', tags: null, doc: null, n: null, flag: true },
      { label: 'fourth!', tags: null, doc: null, n: null, flag: null },
    ]);
  });

  it('when one statement of a shared round trip fails, then the error reaches the caller and the transaction keeps none of them', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await expect(
        applyStatements(client, [
          { text: 'INSERT INTO applied (label) VALUES ($1::text)', values: ['doomed'] },
          { text: 'SELECT 1 / $1::int', values: [0] },
        ]),
      ).rejects.toThrow(/division by zero/);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect((await pool.query("SELECT count(*)::int AS n FROM applied WHERE label = 'doomed'")).rows[0].n).toBe(0);
  });
});
