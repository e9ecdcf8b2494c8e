import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListsEnv, type ListsEnv } from '../support/lists-seed.js';

let w: ListsEnv;
let ivy: { id: number; username: string | null };
let jack: { id: number };
let kate: { id: number };
let rolledBack = '';
const fieldsOf = (body: { details?: { field: string }[] }) => (body.details ?? []).map((d) => d.field);

beforeAll(async () => {
  w = await createListsEnv('lists_stats');
  [ivy, jack, kate] = [await w.env.makeUser(), await w.env.makeUser(), await w.env.makeUser()];
  const deposits: [number, string, string][] = [
    [ivy.id, '100', '2026-03-02T10:15:00Z'],
    [ivy.id, '50', '2026-03-02T11:40:00Z'],
    [jack.id, '30', '2026-03-03T09:00:00Z'],
    [jack.id, '20', '2026-03-10T09:00:00Z'],
    [ivy.id, '7', '2026-04-01T00:00:00Z'],
  ];
  for (const [user, amount, at] of deposits) {
    w.at(at);
    await w.deposit(user, amount);
  }
  w.at('2026-03-03T12:00:00Z');
  await w.deposit(jack.id, '999', { end: 'PENDING' });
  await w.deposit(jack.id, '555', { end: 'FAILED' });
  w.at('2026-03-05T12:00:00Z');
  const wd = await w.withdraw(ivy.id, '40');
  await w.approve(wd.id);
  await w.completeWithdrawal(wd.id);
  await w.withdraw(jack.id, '10');
  w.at('2026-04-02T08:00:00Z');
  await w.bet(ivy.id, '10', { payout: '25' });
  await w.bet(ivy.id, '20', { payout: '0' });
  await w.bet(ivy.id, '5', { payout: '5' });
  rolledBack = (await w.bet(ivy.id, '8', { end: 'ROLLBACK' })).id;
  await w.caughtUp();
});
afterAll(async () => {
  await w?.close();
});

describe('GET /user/stats/transactions', () => {
  const buckets = async (query: string) => {
    const reply = await w.get(`/user/stats/transactions?${query}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body;
  };

  it.each([
    [
      'HOURLY',
      [
        ['2026-03-02T10:00:00.000Z', '100', 1],
        ['2026-03-02T11:00:00.000Z', '50', 1],
        ['2026-03-03T09:00:00.000Z', '30', 1],
        ['2026-03-10T09:00:00.000Z', '20', 1],
        ['2026-04-01T00:00:00.000Z', '7', 1],
      ],
    ],
    [
      'DAILY',
      [
        ['2026-03-02T00:00:00.000Z', '150', 2],
        ['2026-03-03T00:00:00.000Z', '30', 1],
        ['2026-03-10T00:00:00.000Z', '20', 1],
        ['2026-04-01T00:00:00.000Z', '7', 1],
      ],
    ],
    [
      'WEEKLY',
      [
        ['2026-03-02T00:00:00.000Z', '180', 3],
        ['2026-03-09T00:00:00.000Z', '20', 1],
        ['2026-03-30T00:00:00.000Z', '7', 1],
      ],
    ],
    [
      'MONTHLY',
      [
        ['2026-03-01T00:00:00.000Z', '200', 4],
        ['2026-04-01T00:00:00.000Z', '7', 1],
      ],
    ],
  ])(
    'when deposits are bucketed %s, then UTC periods with the USD sum and count of COMPLETE deposits, largest first',
    async (dataRange, expected) => {
      const body = await buckets(`transactionType=DEPOSIT&dataRange=${dataRange}`);
      const rows = expected.map(([period, amount, count]) => ({ period, amount, count }));
      expect(body).toEqual({ data: rows, take: 20, page: 1, total: rows.length, totalPages: 1 });
      expect((await buckets(`transactionType=DEPOSIT&dataRange=${dataRange}&sortOrder=asc`)).data).toEqual([...rows].reverse());
    },
  );

  it('when withdrawals are asked with the defaults, then daily buckets of COMPLETE withdrawals only', async () => {
    expect((await buckets('transactionType=WITHDRAW')).data).toEqual([{ period: '2026-03-05T00:00:00.000Z', amount: '40', count: 1 }]);
  });

  it('when paged with take 30 allowed, then the slice and the total of buckets', async () => {
    const body = await buckets('transactionType=DEPOSIT&dataRange=HOURLY&take=2&page=3&sortBy=amount');
    expect(body).toEqual({
      data: [{ period: '2026-04-01T00:00:00.000Z', amount: '7', count: 1 }],
      take: 2,
      page: 3,
      total: 5,
      totalPages: 3,
    });
    expect((await w.get('/user/stats/transactions?transactionType=DEPOSIT&take=30')).status).toBe(200);
  });

  it('when a DAILY range is asked, then every day of it comes, the empty ones at 0, sorted as the list is, total the days', async () => {
    const body = await buckets('transactionType=DEPOSIT&dataRange=DAILY&from=2026-03-01T00:00:00.000Z&to=2026-03-05T00:00:00.000Z');
    expect(body).toEqual({
      data: [
        { period: '2026-03-02T00:00:00.000Z', amount: '150', count: 2 },
        { period: '2026-03-03T00:00:00.000Z', amount: '30', count: 1 },
        { period: '2026-03-04T00:00:00.000Z', amount: '0', count: 0 },
        { period: '2026-03-01T00:00:00.000Z', amount: '0', count: 0 },
      ],
      take: 20,
      page: 1,
      total: 4,
      totalPages: 1,
    });
    const ascending = await buckets(
      'transactionType=DEPOSIT&from=2026-03-01T00:00:00.000Z&to=2026-03-05T00:00:00.000Z&sortOrder=asc&take=2',
    );
    expect(ascending.data.map((b: { period: string }) => b.period.slice(0, 10))).toEqual(['2026-03-01', '2026-03-04']);
    expect(ascending).toMatchObject({ total: 4, totalPages: 2 });
  });

  it('when a range starts or ends inside a period, then that period comes whole', async () => {
    const days = await buckets('transactionType=DEPOSIT&from=2026-03-02T10:30:00.000Z&to=2026-03-03T00:00:01.000Z');
    expect(days.data).toEqual([
      { period: '2026-03-02T00:00:00.000Z', amount: '150', count: 2 },
      { period: '2026-03-03T00:00:00.000Z', amount: '30', count: 1 },
    ]);
    const months = await buckets('transactionType=DEPOSIT&dataRange=MONTHLY&from=2026-02-15T00:00:00.000Z&to=2026-04-02T00:00:00.000Z');
    expect(months.data.map((b: { period: string; amount: string }) => [b.period.slice(0, 7), b.amount])).toEqual([
      ['2026-03', '200'],
      ['2026-04', '7'],
      ['2026-02', '0'],
    ]);
    const hours = await buckets('transactionType=DEPOSIT&dataRange=HOURLY&from=2026-03-02T09:00:00%2B01:00&to=2026-03-02T13:00:00.000Z');
    expect(hours.data.map((b: { period: string; count: number }) => [b.period.slice(11, 13), b.count])).toEqual([
      ['10', 1],
      ['11', 1],
      ['12', 0],
      ['09', 0],
      ['08', 0],
    ]);
  });

  it.each([
    ['from without to', 'transactionType=DEPOSIT&from=2026-03-01T00:00:00Z', 'query.to'],
    ['to before from', 'transactionType=DEPOSIT&from=2026-03-05T00:00:00Z&to=2026-03-01T00:00:00Z', 'query.to'],
    [
      'a range of more than 1000 periods',
      'transactionType=DEPOSIT&dataRange=HOURLY&from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z',
      'query.to',
    ],
    ['a from that is no date-time', 'transactionType=DEPOSIT&from=yesterday&to=2026-03-01T00:00:00Z', 'query.from'],
  ])('when %s, then 400 VALIDATION_FAILED naming the field', async (_name, query, field) => {
    const reply = await w.get(`/user/stats/transactions?${query}`);
    expect(reply.status).toBe(400);
    expect(fieldsOf(reply.body)).toContain(field);
  });

  it.each([
    ['take above 30', 'transactionType=DEPOSIT&take=31', 'query.take'],
    ['missing transactionType', 'dataRange=DAILY', 'query.transactionType'],
    ['unknown dataRange', 'transactionType=DEPOSIT&dataRange=YEARLY', 'query.dataRange'],
    ['unknown sortBy', 'transactionType=DEPOSIT&sortBy=count', 'query.sortBy'],
  ])('when %s, then 400 VALIDATION_FAILED naming the field', async (_name, query, field) => {
    const reply = await w.get(`/user/stats/transactions?${query}`);
    expect(reply.status).toBe(400);
    expect(fieldsOf(reply.body)).toContain(field);
  });
});

describe('GET /user/:id/full/stats', () => {
  it('when a user has bets, deposits and a withdrawal, then every figure follows its formula', async () => {
    const reply = await w.get(`/user/${ivy.id}/full/stats`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      totalWagered: '35',
      totalPayouts: '30',
      totalDeposits: '157',
      totalWithdraws: '40',
      ltv: '117',
      ggr: '5',
      totalLoss: '5',
      avgBet: '11.66666667',
      netDeposit: '117',
      totalBets: 3,
      rtp: 85.71,
      winRate: 33.33,
    });
  });

  it('when a user has no activity, then zeros', async () => {
    expect((await w.get(`/user/${kate.id}/full/stats`)).body).toEqual({
      totalWagered: '0',
      totalPayouts: '0',
      totalDeposits: '0',
      totalWithdraws: '0',
      ltv: '0',
      ggr: '0',
      totalLoss: '0',
      avgBet: '0',
      netDeposit: '0',
      totalBets: 0,
      rtp: 0,
      winRate: 0,
    });
  });

  it('when the user does not exist, then 404; a non-numeric id is 400', async () => {
    expect((await w.get('/user/987654321/full/stats')).body.code).toBe('USER_NOT_FOUND');
    const bad = await w.get('/user/abc/full/stats');
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toContain('params.id');
  });
});

describe('POST /accounting/transactions', () => {
  const list = async (body: unknown) => {
    const reply = await w.post('/accounting/transactions', body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body;
  };

  it('when a rollback is asked for, then the transaction record with its original id and balances', async () => {
    const body = await list({ where: { userId: ivy.id, type: 'ROLLBACK_BET' } });
    expect(body).toEqual({
      data: [
        {
          id: `rb_${rolledBack}`,
          userId: ivy.id,
          username: ivy.username,
          currencyId: 'DBC',
          type: 'ROLLBACK_BET',
          amount: '8',
          beforeBalance: '104',
          afterBalance: '112',
          originalId: `bet_${rolledBack}`,
          adminUserId: null,
          adminUsername: null,
          createdAt: '2026-04-02T08:00:00.000Z',
          updatedAt: '2026-04-02T08:00:00.000Z',
        },
      ],
      take: 20,
      page: 1,
      total: 1,
      totalPages: 1,
    });
  });

  it('when filtered by user and type, then newest first by default and oldest first with asc', async () => {
    const amounts = (b: { data: { amount: string }[] }) => b.data.map((t) => t.amount);
    expect(amounts(await list({ where: { userId: ivy.id, type: 'DEPOSIT' } }))).toEqual(['7', '50', '100']);
    expect(amounts(await list({ sortOrder: 'asc', where: { userId: ivy.id, type: 'DEPOSIT' } }))).toEqual(['100', '50', '7']);
    expect(amounts(await list({ sortOrder: 'asc', where: { userId: ivy.id, type: 'BET' } }))).toEqual(['-10', '-20', '-5', '-8']);
  });

  it('when filtered by a date range and currency, then only transactions inside it', async () => {
    const body = await list({
      sortOrder: 'asc',
      where: { type: 'DEPOSIT', createdAt: { gte: '2026-03-02T11:00:00Z', lt: '2026-03-04T00:00:00Z' } },
    });
    expect(body.data.map((t: { amount: string; userId: number }) => [t.userId, t.amount])).toEqual([
      [ivy.id, '50'],
      [jack.id, '30'],
    ]);
    expect((await list({ where: { currencyId: 'BTC' } })).total).toBe(0);
    expect(await list({ where: { userId: ivy.id }, take: 4, page: 2 })).toMatchObject({ take: 4, page: 2, total: 11, totalPages: 3 });
  });

  it.each([
    ['take above 20', { take: 21 }, 'body.take'],
    ['unknown type', { where: { type: 'BONUS' } }, 'body.where.type'],
    ['malformed date', { where: { createdAt: { gte: 'soon' } } }, 'body.where.createdAt.gte'],
    ['unknown sortOrder', { sortOrder: 'up' }, 'body.sortOrder'],
  ])('when %s, then 400 VALIDATION_FAILED naming the field', async (_name, body, field) => {
    const reply = await w.post('/accounting/transactions', body);
    expect(reply.status).toBe(400);
    expect(fieldsOf(reply.body)).toContain(field);
  });
});
