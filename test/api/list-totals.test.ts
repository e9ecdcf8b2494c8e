import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListsEnv, type ListsEnv } from '../support/lists-seed.js';
import { countsMismatches } from '../support/list-counts.js';

/**
 * List totals through the routes: every counted shape answers the exact total from the kept counts
 * (`x-total-source: counter`), date ranges included (whole days from counts, partial days counted exactly);
 * other filters still answer the exact total by a count(*).
 */
describe('list totals', () => {
  let env: ListsEnv;
  let pool: pg.Pool;
  const users: number[] = [];

  const count = async (sql: string, values: unknown[] = []): Promise<number> =>
    Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, values)).rows[0]!.n);

  beforeAll(async () => {
    env = await createListsEnv('list_totals');
    pool = env.env.pool;
    for (let u = 0; u < 3; u += 1) users.push((await env.env.makeUser()).id);
    // Three days of activity, at times that fall on both sides of the day boundaries the ranges below cut.
    const times = [
      '2026-03-01T00:00:00.000Z',
      '2026-03-01T13:00:00.000Z',
      '2026-03-02T08:30:00.000Z',
      '2026-03-02T23:59:59.999Z',
      '2026-03-03T06:00:00.000Z',
    ];
    env.at('2026-02-27T12:00:00.000Z');
    for (const u of users) await env.deposit(u, '100');
    for (const [i, t] of times.entries()) {
      env.at(t);
      for (const [j, u] of users.entries()) {
        await env.deposit(u, '100', { end: (['COMPLETE', 'PENDING', 'FAILED', 'CONFIRMED'] as const)[(i + j) % 4]! });
        await env.bet(u, '1', { end: (['SETTLED', 'ROLLBACK', 'CREATED', 'SETTLED'] as const)[(i + j) % 4]!, payout: '2' });
        if ((i + j) % 2 === 0) await env.tip(u, '1', `tip ${i}`);
      }
    }
    const w = await env.withdraw(users[0]!, '5');
    await env.approve(w.id);
    await env.completeWithdrawal(w.id);
    await env.withdraw(users[1]!, '5');
    await env.caughtUp();
  });
  afterAll(async () => env?.close());

  const expectTotal = (
    reply: { status: number; body: { total: number }; headers: Headers },
    total: number,
    source: 'counter' | 'scan',
  ): void => {
    expect({ status: reply.status, total: reply.body.total, source: reply.headers.get('x-total-source') }).toEqual({
      status: 200,
      total,
      source,
    });
  };

  it('when bets are listed by status, user, or a createdAt range, then the total comes from the counts and equals count(*)', async () => {
    const shapes: [string, Record<string, unknown>, number][] = [
      ['default SETTLED', {}, await count(`bets WHERE status = 'SETTLED'`)],
      ['ROLLBACK', { status: 'ROLLBACK' }, await count(`bets WHERE status = 'ROLLBACK'`)],
      ['user', { userId: users[1] }, await count(`bets WHERE status = 'SETTLED' AND user_id = $1`, [users[1]])],
      [
        'whole days',
        { createdAt: { gte: '2026-03-01T00:00:00.000Z', lt: '2026-03-03T00:00:00.000Z' } },
        await count(`bets WHERE status = 'SETTLED' AND created_at >= '2026-03-01' AND created_at < '2026-03-03'`),
      ],
      [
        'partial days',
        { createdAt: { gt: '2026-03-01T00:00:00.000Z', lte: '2026-03-03T06:00:00.000Z' } },
        await count(`bets WHERE status = 'SETTLED' AND created_at > '2026-03-01' AND created_at <= '2026-03-03T06:00:00.000Z'`),
      ],
      [
        'open end',
        { createdAt: { gte: '2026-03-02T08:30:00.000Z' } },
        await count(`bets WHERE status = 'SETTLED' AND created_at >= '2026-03-02T08:30:00.000Z'`),
      ],
      [
        'open start',
        { createdAt: { lt: '2026-03-02T12:00:00.000Z' } },
        await count(`bets WHERE status = 'SETTLED' AND created_at < '2026-03-02T12:00:00.000Z'`),
      ],
    ];
    for (const [, where, total] of shapes) {
      expectTotal(await env.post('/bets', { sortBy: 'CREATED_AT', sortOrder: 'desc', page: 1, take: 2, where }), total, 'counter');
    }
    expect(shapes[0]![2]).toBeGreaterThan(0);
    // No whole day in the range, or a filter no count covers: still exact, by a count(*) (bounded by the date index for a range).
    expectTotal(
      await env.post('/bets', {
        sortBy: 'CREATED_AT',
        sortOrder: 'desc',
        page: 1,
        take: 2,
        where: { createdAt: { gt: '2026-03-01T00:00:00.000Z', lte: '2026-03-02T23:59:59.999Z' } },
      }),
      await count(`bets WHERE status = 'SETTLED' AND created_at > '2026-03-01' AND created_at <= '2026-03-02T23:59:59.999Z'`),
      'scan',
    );
    expectTotal(
      await env.post('/bets', { sortBy: 'CREATED_AT', sortOrder: 'desc', page: 1, take: 2, where: { gameId: 1 } }),
      await count(`bets WHERE status = 'SETTLED' AND game_id = 1`),
      'scan',
    );
  });

  it('when deposits, withdrawals, tips and the accounting log are listed by their counted filters, then the totals are exact from the counts', async () => {
    const q = 'sortBy=CREATED_AT&sortOrder=desc&take=1';
    expectTotal(await env.get(`/deposit?${q}`), await count('deposits'), 'counter');
    expectTotal(await env.get(`/deposit?${q}&status=PENDING`), await count(`deposits WHERE status = 'PENDING'`), 'counter');
    expectTotal(
      await env.get(`/deposit?${q}&status=COMPLETE&userId=${users[2]}`),
      await count(`deposits WHERE status = 'COMPLETE' AND user_id = $1`, [users[2]]),
      'counter',
    );
    expectTotal(await env.get(`/withdraw?${q}`), 2, 'counter');
    expectTotal(await env.get(`/withdraw?${q}&status=COMPLETE`), 1, 'counter');
    expectTotal(await env.get(`/withdraw?${q}&userId=${users[1]}&status=PENDING`), 1, 'counter');
    expectTotal(
      await env.get(`/admin-tips?sortBy=CREATED_AT&sortOrder=desc&recipientUserId=${users[0]}`),
      await count('admin_tips WHERE recipient_user_id = $1', [users[0]]),
      'counter',
    );
    expectTotal(await env.get('/admin-tips?sortBy=CREATED_AT&sortOrder=desc&search=tip'), await count('admin_tips'), 'scan');
    expectTotal(await env.post('/accounting/transactions', { take: 1 }), await count('transactions'), 'counter');
    expectTotal(
      await env.post('/accounting/transactions', { take: 1, where: { userId: users[0] } }),
      await count('transactions WHERE user_id = $1', [users[0]]),
      'counter',
    );
    expectTotal(
      await env.post('/accounting/transactions', {
        take: 1,
        where: { createdAt: { gte: '2026-03-01T12:00:00.000Z', lte: '2026-03-03T00:00:00.000Z' } },
      }),
      await count(`transactions WHERE created_at >= '2026-03-01T12:00:00.000Z' AND created_at <= '2026-03-03T00:00:00.000Z'`),
      'counter',
    );
    expectTotal(
      await env.post('/accounting/transactions', { take: 1, where: { type: 'BET' } }),
      await count(`transactions WHERE type = 'BET'`),
      'scan',
    );
    expect(await countsMismatches(pool)).toEqual([]);
  });
});
