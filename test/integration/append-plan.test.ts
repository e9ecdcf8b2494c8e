import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BET_GUARD } from '../../src/commands/bet-guard.js';
import { guardStatements, SOLO_STATEMENTS, STATEMENTS } from '../../src/infra/event-store/postgres/postgres.append.js';

const GUARDED = guardStatements(BET_GUARD);
const ALL = { ...STATEMENTS, guards: GUARDED.full, leanGuards: GUARDED.lean };
const ALL_SOLO = { ...SOLO_STATEMENTS, soloGuards: GUARDED.solo };
import { WRITER_SETTINGS } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { siblingPool } from '../../src/infra/pg.js';
import { migrateAll } from '../../src/schema.js';
import { createTestDb, type TestDb } from '../support/db.js';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb('append_plan');
  await migrateAll(db.pool({ max: 1 }));
});
afterAll(() => db.drop());

/** One request of one event with a claim and a guard: every parameter a variant can take. */
const VALUES = [
  ['wallet-1'],
  ['exact'],
  ['3'],
  [1],
  [1],
  [1],
  [randomUUID()],
  ['BetPlaced'],
  '{}',
  '{}',
  [1],
  ['bet'],
  ['b-1'],
  ['1'],
  [true],
  [1],
  ['1'],
  ['1.5'],
  [new Date().toISOString()],
  ['{1,2,3,NULL,NULL,NULL}'],
];

/** The same request in the solo statements' scalar parameters. */
const SOLO_VALUES = [
  'wallet-1',
  '3',
  randomUUID(),
  'BetPlaced',
  '{}',
  '{}',
  'bet',
  'b-1',
  '1',
  '1',
  '1.5',
  new Date().toISOString(),
  '{1,2,3,NULL,NULL,NULL}',
];

type Statement = Readonly<{ text: string; params: number }>;
const planOf = async (settings: readonly string[], statement: Statement, values: readonly unknown[] = VALUES): Promise<string> => {
  const pool = siblingPool(db.pool({ max: 1 }), 1, settings);
  const client = await pool.connect();
  try {
    // A prepared statement's EXPLAIN EXECUTE shows the plan it keeps: with force_generic_plan, the generic one.
    await client.query(`PREPARE append_plan AS ${statement.text}`);
    const args = values
      .slice(0, statement.params)
      .map((v) => (Array.isArray(v) ? `'{${v.map((x) => `"${String(x)}"`).join(',')}}'` : `'${v}'`));
    const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE append_plan(${args.join(', ')})`);
    const kept = await client.query<{ generic_plans: string }>(
      `SELECT generic_plans FROM pg_prepared_statements WHERE name = 'append_plan'`,
    );
    return `generic plans: ${kept.rows[0]?.generic_plans}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`;
  } finally {
    client.release(true);
    await pool.end();
  }
};

describe('the PostgreSQL append statement', () => {
  it.each(Object.entries(ALL))(
    'when the %s variant is planned on the writer connections of an empty ledger, then it keeps a generic plan that reaches every table by key',
    async (_, statement) => {
      const plan = await planOf(WRITER_SETTINGS, statement);
      expect(plan).toMatch(/^generic plans: 1\n/);
      expect(plan).not.toMatch(/Seq Scan on (events|streams|ledger_keys|user_access|user_limits)\b/);
      expect(plan).toMatch(/Index (Only )?Scan using \w+ on (events|streams)/);
    },
  );

  it.each(Object.entries(ALL_SOLO))(
    'when the %s variant for a lone request is planned on the writer connections of an empty ledger, then its generic plan reaches every table by key',
    async (_, statement) => {
      const plan = await planOf(WRITER_SETTINGS, statement, SOLO_VALUES);
      expect(plan).toMatch(/^generic plans: 1\n/);
      expect(plan).not.toMatch(/Seq Scan on (events|streams|ledger_keys|user_access|user_limits)\b/);
      expect(plan).toMatch(/Index (Only )?Scan using \w+ on streams/);
    },
  );

  it('when the same statement is planned without those settings, then on tables this small PostgreSQL would scan them whole', async () => {
    const plan = await planOf(['plan_cache_mode=force_generic_plan'], GUARDED.full);
    expect(plan).toMatch(/Seq Scan on (events|streams|ledger_keys|user_access|user_limits)\b/);
  });

  it('when the writer connections are opened, then they reach the same schema as the pool they come from, with their settings', async () => {
    const owner = db.pool({ max: 1 });
    const writer = siblingPool(owner, 1, WRITER_SETTINGS);
    try {
      const { rows } = await writer.query<{ schema: string; seqscan: string; plans: string }>(
        `SELECT current_schema() AS schema, current_setting('enable_seqscan') AS seqscan, current_setting('plan_cache_mode') AS plans`,
      );
      expect(rows).toEqual([{ schema: db.schema, seqscan: 'off', plans: 'force_generic_plan' }]);
      expect((await owner.query<{ s: string }>(`SELECT current_setting('enable_seqscan') AS s`)).rows[0]!.s).toBe('on');
    } finally {
      await writer.end();
    }
  });

  it('when the pool was given a password apart from its URL, then the writer connections carry it too', () => {
    // pg-pool keeps the password out of enumeration (and so out of a spread of its options).
    const owner = new pg.Pool({ connectionString: db.connectionString, password: 'kept apart' });
    const writer = siblingPool(owner, 1, WRITER_SETTINGS);
    expect(writer.options.password).toBe('kept apart');
    return Promise.all([writer.end(), owner.end()]);
  });
});
