import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siblingPool } from '../../src/infra/pg.js';
import { listBets, type BetsFilter } from '../../src/wallet/bets/bets.queries.js';
import { migrateAll } from '../../src/schema.js';
import { createTestDb, type TestDb } from '../support/db.js';

let db: TestDb;
let pool: pg.Pool;
beforeAll(async () => {
  db = await createTestDb('bets_plan');
  await migrateAll(db.pool({ max: 1 }));
  // With sorting priced out, the plan sorts only when no index holds the rows in the list's order.
  pool = siblingPool(db.pool({ max: 1 }), 1, ['enable_sort=off', 'enable_seqscan=off']);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

type PlanNode = Readonly<{ 'Node Type': string; 'Parent Relationship'?: string; 'Index Name'?: string; Plans?: PlanNode[] }>;
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/** The plan of the page's inner query, which finds its keys in the list's order: the one place a sort would cost. */
const keysPlan = async (q: BetsFilter): Promise<PlanNode[]> => {
  const plans: PlanNode[][] = [];
  const explaining = {
    query: async (text: string, values: unknown[]) => {
      if (/ORDER BY/i.test(text)) {
        const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
        const inner = nodes(rows[0]!['QUERY PLAN'][0].Plan).filter((n) => n['Parent Relationship'] === 'InitPlan');
        plans.push(inner.flatMap(nodes));
      }
      return pool.query(text, values);
    },
  } as unknown as pg.Pool;
  await listBets(explaining, q);
  expect(plans).toHaveLength(1);
  return plans[0]!;
};

describe('the bets list orders', () => {
  const cases = (['CREATED_AT', 'MULTIPLIER', 'USD_AMOUNT', 'USD_PAYOUT'] as const).flatMap((sortBy) =>
    (['asc', 'desc'] as const).flatMap((sortOrder) =>
      (['SETTLED', 'CREATED'] as const).map((status) => [sortBy, sortOrder, status] as const),
    ),
  );
  it.each(cases)(
    'when bets are listed by %s %s with status %s, then an index gives the order and nothing is sorted',
    async (sortBy, sortOrder, status) => {
      const plan = await keysPlan({ page: 2, take: 20, sortBy, sortOrder, where: { status } });
      expect(plan.map((n) => n['Index Name'])).toContainEqual(expect.stringMatching(/^bets_list_/));
      expect(plan.map((n) => n['Node Type'])).not.toContainEqual(expect.stringMatching(/Sort/));
    },
  );

  it('when a bet is settled without a multiplier, or is not settled with one, then the table refuses the row', async () => {
    const row = (status: string, multiplier: string | null) =>
      pool.query(
        `INSERT INTO bets (id, user_id, round_id, game_id, game_name, game_slug, game_type, game_provider, currency_id, amount,
          usd_amount, payout, usd_payout, multiplier, status, transaction_id, created_at, updated_at, effective_at)
         VALUES ($1, 1, 'r', 1, 'Dice', 'dice', 'ORIGINALS', 'house', 'USDT', 1, 1, 0, 0, $2, $3, 't', now(), now(), now())`,
        [`${status}-${multiplier}`, multiplier, status],
      );
    const check = await pool.query<{ convalidated: boolean }>(
      `SELECT convalidated FROM pg_constraint WHERE conname = 'bets_multiplier_when_settled' AND connamespace = current_schema()::regnamespace`,
    );
    expect(check.rows).toEqual([{ convalidated: true }]);
    await expect(row('SETTLED', null)).rejects.toThrow(/bets_multiplier_when_settled/);
    await expect(row('CREATED', '2')).rejects.toThrow(/bets_multiplier_when_settled/);
    await expect(row('SETTLED', '2')).resolves.toMatchObject({ rowCount: 1 });
    await expect(row('CREATED', null)).resolves.toMatchObject({ rowCount: 1 });
  });
});
