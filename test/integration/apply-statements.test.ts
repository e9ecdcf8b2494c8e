import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createTestDb, type TestDb } from '../support/db.js';
import { applyCheckedBatch, applyStatements, type CheckedBatch } from '../../src/projections/apply-statements.js';
import { migrateNonCore } from '../../src/schema.js';
import { patchRows } from '../../src/projections/projection.js';

describe("a projector batch's statements in one round trip", () => {
  let db: TestDb;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDb('apply_statements');
    pool = db.pool();
    await migrateNonCore(pool);
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
  describe('each connection prepares the statements it runs', () => {
    const insert = (label: string) => ({ text: 'INSERT INTO prepared_here (label) VALUES ($1::text)', values: [label] });
    const labels = async (schema: string): Promise<string[]> =>
      (await pool.query<{ label: string }>(`SELECT label FROM ${schema}.prepared_here ORDER BY seq`)).rows.map((r) => r.label);
    const other = (): string => `${db.schema}_b`;

    beforeAll(async () => {
      await pool.query('CREATE TABLE prepared_here (seq serial PRIMARY KEY, label text)');
      await pool.query(`CREATE SCHEMA ${other()}; CREATE TABLE ${other()}.prepared_here (seq serial PRIMARY KEY, label text)`);
    });
    afterAll(() => pool.query(`DROP SCHEMA IF EXISTS ${other()} CASCADE`));

    it('when the search path changes on a connection, then the same statement writes to the table the new path names', async () => {
      const client = await pool.connect();
      try {
        await applyStatements(client, [insert('a1'), insert('a2')]);
        await client.query(`SET search_path = ${other()}, ${db.schema}, public`);
        await applyStatements(client, [insert('b1'), insert('b2')]);
      } finally {
        await client.query(`SET search_path = ${db.schema}, public`);
        client.release();
      }
      expect(await labels(db.schema)).toEqual(['a1', 'a2']);
      expect(await labels(other())).toEqual(['b1', 'b2']);
    });

    it('when the transaction that prepared a statement rolls back, or its plan is old, then the next batch still runs it', async () => {
      const client = await pool.connect();
      const fresh = (label: string) => ({ text: 'INSERT INTO prepared_here (label) SELECT $1::text', values: [label] });
      try {
        await client.query('BEGIN');
        await expect(applyStatements(client, [fresh('lost'), { text: 'SELECT 1 / $1::int', values: [0] }])).rejects.toThrow(/division/);
        await client.query('ROLLBACK');
        await applyStatements(client, [fresh('kept'), { text: 'SELECT $1::int', values: [1] }]);
        // As if prepared long ago: the next use prepares it again.
        await client.query(`SELECT set_config('ledger_projection.projection_' || md5($1), '0', false)`, [fresh('').text]);
        await applyStatements(client, [fresh('again'), { text: 'SELECT $1::int', values: [1] }]);
      } finally {
        client.release();
      }
      expect((await labels(db.schema)).filter((l) => ['lost', 'kept', 'again'].includes(l))).toEqual(['kept', 'again']);
    });

    it('when the table is dropped and created again, then the prepared statement finds the new one', async () => {
      const client = await pool.connect();
      try {
        await applyStatements(client, [insert('before'), { text: 'SELECT $1::int', values: [1] }]);
        await client.query('DROP TABLE prepared_here; CREATE TABLE prepared_here (label text, seq serial PRIMARY KEY)');
        await applyStatements(client, [insert('after'), { text: 'SELECT $1::int', values: [1] }]);
      } finally {
        client.release();
      }
      expect(await labels(db.schema)).toEqual(['after']);
    });
  });

  it('when rows of a fresh, growing table are patched, then they are found through its key, not by reading the whole table', async () => {
    // 30,000 bets and no statistics yet: what a busy ledger's bets table looks like before autovacuum has analysed it.
    await pool.query(`INSERT INTO bets SELECT 'pb' || g, g % 50, 'r', 7, 'Dice', 'dice', 'ORIGINALS', 'house', 'USDT', 1.5, 1.5, 0, 0, NULL,
      'CREATED', NULL, 't' || g, now(), now(), NULL, now() FROM generate_series(1, 30000) AS g`);
    const [patch] = patchRows(
      'bets',
      'id',
      ['status', 'payout', 'multiplier'],
      [
        { id: 'pb7', status: 'SETTLED', payout: '3', multiplier: '2' },
        { id: 'pb29999', status: 'SETTLED', payout: '0', multiplier: '0' },
      ],
    );
    // EXPLAIN alone plans the statement without running it.
    const plan = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${patch!.text}`, patch!.values);
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).not.toMatch(/Seq Scan on bets/);
    await pool.query(patch!.text, patch!.values);
    const { rows } = await pool.query(
      `SELECT id, status, payout::text AS payout FROM bets WHERE id IN ('pb7', 'pb8', 'pb29999') ORDER BY id`,
    );
    expect(rows).toEqual([
      { id: 'pb29999', status: 'SETTLED', payout: '0' },
      { id: 'pb7', status: 'SETTLED', payout: '3' },
      { id: 'pb8', status: 'CREATED', payout: '0' },
    ]);
  });

  describe('a live batch in one call (projection_batch)', () => {
    const checkpoint = async (name: string): Promise<string | undefined> =>
      (await pool.query<{ position: string }>('SELECT position FROM projection_checkpoints WHERE name = $1', [name])).rows[0]?.position;
    const labelled = async (label: string): Promise<number> =>
      (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM applied WHERE label = $1', [label])).rows[0]!.n;

    /** model-a alone, expected at 12/12 (where the first test leaves it) and moved to 13/13. */
    const modelA = (over: Partial<CheckedBatch> = {}): CheckedBatch => ({
      globalKey: ':projections',
      modelKeys: [':projection:model-a'],
      names: ['model-a'],
      versions: [1],
      expected: ['12/12'],
      to: '13/13',
      ...over,
    });

    /** Both models, each expected at `from` and moved to `to`. */
    const bothModels = (from: string, to: string): CheckedBatch => ({
      ...modelA({ to }),
      modelKeys: [':projection:model-a', ':projection:model-b'],
      names: ['model-a', 'model-b'],
      versions: [1, 2],
      expected: [from, from],
    });

    beforeAll(async () => {
      await pool.query(
        `INSERT INTO projection_checkpoints (name, version, position) VALUES ('model-a', 1, '10/10'), ('model-b', 2, '10/10')`,
      );
    });

    it('when every checkpoint is the expected one, then the statements run and the checkpoints move, in one call', async () => {
      const took = await applyCheckedBatch(pool, bothModels('10/10', '12/12'), [
        { text: 'INSERT INTO applied (label, tags) VALUES ($1::text, $2::text[])', values: ['checked', ['x"y']] },
        { text: 'INSERT INTO applied (label) VALUES ($1::text)', values: ['checked'] },
      ]);
      expect(took).toHaveLength(2);
      expect(await labelled('checked')).toBe(2);
      expect([await checkpoint('model-a'), await checkpoint('model-b')]).toEqual(['12/12', '12/12']);
    });

    it('when a checkpoint is not the expected one, then nothing is written and the caller is told to take the long way', async () => {
      // Another process moved model-b on to 15/15 meanwhile.
      await pool.query(`UPDATE projection_checkpoints SET position = '15/15' WHERE name = 'model-b'`);
      const took = await applyCheckedBatch(pool, bothModels('12/12', '14/14'), [
        { text: 'INSERT INTO applied (label) VALUES ($1::text)', values: ['stale'] },
      ]);
      expect(took).toBeUndefined();
      expect(await labelled('stale')).toBe(0);
      expect([await checkpoint('model-a'), await checkpoint('model-b')]).toEqual(['12/12', '15/15']);
    });

    it('when the version differs or a replay mark is pending, then nothing is written', async () => {
      const stale = modelA({ versions: [2] });
      expect(
        await applyCheckedBatch(pool, stale, [{ text: 'INSERT INTO applied (label) VALUES ($1::text)', values: ['v'] }]),
      ).toBeUndefined();
      await pool.query(`INSERT INTO projection_rederive_pending (name) VALUES ('model-a')`);
      const marked = modelA();
      expect(
        await applyCheckedBatch(pool, marked, [{ text: 'INSERT INTO applied (label) VALUES ($1::text)', values: ['v'] }]),
      ).toBeUndefined();
      await pool.query(`DELETE FROM projection_rederive_pending WHERE name = 'model-a'`);
      expect(await labelled('v')).toBe(0);
      expect(await checkpoint('model-a')).toBe('12/12');
    });

    it('when a statement cannot share the call (uncast), then nothing is sent and nothing is written', async () => {
      const batch = modelA();
      expect(
        await applyCheckedBatch(pool, batch, [{ text: 'INSERT INTO applied (label) VALUES ($1)', values: ['uncast'] }]),
      ).toBeUndefined();
      expect(await labelled('uncast')).toBe(0);
      expect(await checkpoint('model-a')).toBe('12/12');
    });

    it('when a statement fails, then the error reaches the caller and neither the rows nor the checkpoints move', async () => {
      const batch = modelA();
      await expect(
        applyCheckedBatch(pool, batch, [
          { text: 'INSERT INTO applied (label) VALUES ($1::text)', values: ['failed'] },
          { text: 'SELECT 1 / $1::int', values: [0] },
        ]),
      ).rejects.toThrow(/division by zero/);
      expect(await labelled('failed')).toBe(0);
      expect(await checkpoint('model-a')).toBe('12/12');
    });

    it("when a value is larger than 64 KB (the rows of a busy ledger's batch), then it still shares the call, intact", async () => {
      const big = `big ${'x"\\'.repeat(100_000)}`;
      const took = await applyCheckedBatch(pool, modelA(), [{ text: 'INSERT INTO applied (label) VALUES ($1::text)', values: [big] }]);
      expect(took).toHaveLength(1);
      const { rows } = await pool.query<{ same: boolean }>(`SELECT label = $1 AS same FROM applied WHERE label LIKE 'big %'`, [big]);
      expect(rows).toEqual([{ same: true }]);
      expect(await checkpoint('model-a')).toBe('13/13');
    });
  });
});
