import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Paginated } from '../../src/http/openapi.schemas.js';
import { BetRecord } from '../../src/wallet/bets/bets.schemas.js';
import { createListsEnv, type ListsEnv } from '../support/lists-seed.js';

let w: ListsEnv;
const ids: Record<string, string> = {};
let alice: { id: number; username: string | null };
let bob: { id: number; username: string | null };
const T = (minute: number) => `2026-03-02T10:${String(minute).padStart(2, '0')}:00.000Z`;

beforeAll(async () => {
  w = await createListsEnv('lists_bets');
  alice = await w.env.makeUser();
  bob = await w.env.makeUser();
  await w.deposit(alice.id, '1000');
  await w.deposit(bob.id, '1000');
  const seed: [string, number, string, Parameters<ListsEnv['bet']>[2]][] = [
    ['b1', alice.id, '10', { payout: '25', slug: 'dice', provider: 'Acme Games', gameId: 1 }],
    ['b2', alice.id, '5', { payout: '0', slug: 'crash', provider: 'Beta Studio', gameId: 2 }],
    ['b3', bob.id, '20', { payout: '30', slug: 'Dice-Deluxe', provider: 'ACME Games', gameId: 3 }],
    ['b4', bob.id, '2', { payout: '8', slug: 'mines', provider: 'Beta Studio', gameId: 4 }],
    ['b5', alice.id, '7', { end: 'ROLLBACK' }],
    ['b6', bob.id, '3', { end: 'CREATED' }],
    ['b7', alice.id, '4', { end: 'ERROR' }],
  ];
  for (const [i, [name, user, amount, o]] of seed.entries()) {
    w.at(T(i + 1));
    ids[name] = (await w.bet(user, amount, o)).id;
  }
  await w.caughtUp();
});
afterAll(async () => {
  await w?.close();
});

const names = (body: { data: { id: string }[] }) => body.data.map((b) => Object.entries(ids).find(([, id]) => id === b.id)?.[0]);
const bets = async (query: string) => {
  const reply = await w.get(`/bets?${query}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return names(reply.body);
};
const where = (filter: unknown) => `sortBy=CREATED_AT&sortOrder=asc&where=${encodeURIComponent(JSON.stringify(filter))}`;

describe('GET /bets', () => {
  it('when listed, then a page of settled bets in the spec shape', async () => {
    const reply = await w.get('/bets?sortBy=CREATED_AT&sortOrder=asc&take=2');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ take: 2, page: 1, total: 4, totalPages: 2 });
    expect(reply.body.data[0]).toEqual({
      id: ids.b1,
      userId: alice.id,
      roundId: expect.any(String),
      gameId: 1,
      currencyId: 'DBC',
      amount: '10',
      payout: '25',
      usdAmount: '10',
      usdPayout: '25',
      status: 'SETTLED',
      multiplier: 2.5,
      errorDetails: null,
      commissionGgrUsdAmount: '0',
      commissionGgrPercent: '0',
      gameIdentity: { name: 'DICE', slug: 'dice', type: 'slots', provider: { name: 'Acme Games' }, images: null },
      user: { id: alice.id, username: alice.username, isPrivate: false, avatar: '', vipLevel: 0, isBanned: false },
      createdAt: T(1),
      updatedAt: T(1),
      settledAt: T(1),
    });
  });

  it.each([
    ['CREATED_AT', ['b1', 'b2', 'b3', 'b4']],
    ['MULTIPLIER', ['b2', 'b3', 'b1', 'b4']],
    ['USD_AMOUNT', ['b4', 'b2', 'b1', 'b3']],
    ['USD_PAYOUT', ['b2', 'b4', 'b1', 'b3']],
  ])('when sorted by %s, then ascending and descending orders are exact', async (sortBy, ascending) => {
    expect(await bets(`sortBy=${sortBy}&sortOrder=asc`)).toEqual(ascending);
    expect(await bets(`sortBy=${sortBy}&sortOrder=desc`)).toEqual([...ascending].reverse());
  });

  it.each([
    ['status ROLLBACK', { status: 'ROLLBACK' }, ['b5']],
    ['status ERROR', { status: 'ERROR' }, ['b7']],
    ['status CREATED', { status: 'CREATED' }, ['b6']],
    ['userId', { userId: 0 }, ['b1', 'b2']],
    ['gameId', { gameId: 2 }, ['b2']],
    ['currencyId', { currencyId: 'DBC' }, ['b1', 'b2', 'b3', 'b4']],
    ['multiplier gte', { multiplier: { gte: 2 } }, ['b1', 'b4']],
    ['multiplier lt', { multiplier: { lt: 1.5 } }, ['b2']],
    ['usdAmount gte', { usdAmount: { gte: '10' } }, ['b1', 'b3']],
    ['amount lte', { amount: { lte: '5' } }, ['b2', 'b4']],
    ['payout gt', { payout: { gt: '8' } }, ['b1', 'b3']],
    ['usdPayout equals', { usdPayout: { equals: '8.00' } }, ['b4']],
    ['createdAt gte', { createdAt: { gte: T(3) } }, ['b3', 'b4']],
    ['createdAt lt', { createdAt: { lt: T(2) } }, ['b1']],
    ['slug contains (case-sensitive)', { gameIdentity: { slug: { contains: 'dice' } } }, ['b1']],
    ['slug contains insensitive', { gameIdentity: { slug: { contains: 'DICE', mode: 'insensitive' } } }, ['b1', 'b3']],
    ['slug in', { gameIdentity: { slug: { in: ['dice', 'mines'] } } }, ['b1', 'b4']],
    ['slug notIn', { gameIdentity: { slug: { notIn: ['dice', 'mines'] } } }, ['b2', 'b3']],
    ['slug contains a LIKE wildcard', { gameIdentity: { slug: { contains: '%' } } }, []],
    ['provider slug equals', { gameIdentity: { provider: { slug: { equals: 'Beta Studio' } } } }, ['b2', 'b4']],
    [
      'provider slug startsWith insensitive',
      { gameIdentity: { provider: { slug: { startsWith: 'acme', mode: 'insensitive' } } } },
      ['b1', 'b3'],
    ],
  ])('when filtered by %s (JSON where), then exactly the matching bets', async (_name, filter, expected) => {
    const f = 'userId' in filter ? { userId: alice.id } : filter;
    expect(await bets(where(f))).toEqual(expected);
  });

  it.each([
    ['CREATED', 'b6'],
    ['ROLLBACK', 'b5'],
    ['ERROR', 'b7'],
  ])('when %s bets are listed, then the multiplier is the number 0 (their payout is 0), filtered as 0 too', async (status, name) => {
    const reply = await w.get(`/bets?${where({ status })}`);
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((b: { id: string; multiplier: unknown; payout: string }) => [b.id, b.multiplier, b.payout])).toEqual([
      [ids[name], 0, '0'],
    ]);
    expect(await bets(where({ status, multiplier: { equals: 0 } }))).toEqual([name]);
    expect(await bets(where({ status, multiplier: { gt: 0 } }))).toEqual([]);
  });

  it.each(['CREATED', 'SETTLED', 'ROLLBACK', 'ERROR'])(
    'when %s bets are listed, then every row has the documented Bet shape, a number for multiplier',
    async (status) => {
      const reply = await w.get(`/bets?${where({ status })}`);
      expect(reply.body.data.length).toBeGreaterThan(0);
      expect(Paginated('PaginatedBets', BetRecord).strict().safeParse(reply.body).error).toBeUndefined();
    },
  );

  it('when the filter comes as bracketed query keys, then it is the same filter', async () => {
    expect(await bets('sortBy=CREATED_AT&sortOrder=asc&where[usdAmount][gte]=10')).toEqual(['b1', 'b3']);
    expect(await bets('sortBy=CREATED_AT&sortOrder=asc&where[status]=ROLLBACK')).toEqual(['b5']);
    expect(
      await bets('sortBy=CREATED_AT&sortOrder=asc&where[gameIdentity][slug][in][]=dice&where[gameIdentity][slug][in][]=mines'),
    ).toEqual(['b1', 'b4']);
    expect(
      await bets(
        'sortBy=CREATED_AT&sortOrder=asc&where[gameIdentity][slug][contains]=DICE&where[gameIdentity][slug][mode]=insensitive&where[multiplier][gt]=2',
      ),
    ).toEqual(['b1']);
  });

  it.each([
    ['take above 20', 'sortBy=CREATED_AT&sortOrder=asc&take=21', 'query.take'],
    ['missing sortBy', 'sortOrder=asc', 'query.sortBy'],
    ['unknown sortBy', 'sortBy=PAYOUT&sortOrder=asc', 'query.sortBy'],
    ['unknown sortOrder', 'sortBy=CREATED_AT&sortOrder=up', 'query.sortOrder'],
    ['unknown status', 'sortBy=CREATED_AT&sortOrder=asc&where[status]=WON', 'query.where.status'],
    ['a currency other than DBC', 'sortBy=CREATED_AT&sortOrder=asc&where[currencyId]=BTC', 'query.where.currencyId'],
    ['malformed decimal', 'sortBy=CREATED_AT&sortOrder=asc&where[usdAmount][gte]=1e5', 'query.where.usdAmount.gte'],
    ['malformed date', 'sortBy=CREATED_AT&sortOrder=asc&where[createdAt][gte]=yesterday', 'query.where.createdAt.gte'],
    ['unknown string mode', 'sortBy=CREATED_AT&sortOrder=asc&where[gameIdentity][slug][mode]=fuzzy', 'query.where.gameIdentity.slug.mode'],
    ['a provider id', 'sortBy=CREATED_AT&sortOrder=asc&where[gameIdentity][providerId][equals]=1', 'query.where.gameIdentity.providerId'],
    ['unparsable JSON where', 'sortBy=CREATED_AT&sortOrder=asc&where=%7Bnope', 'query.where'],
  ])('when %s, then 400 VALIDATION_FAILED naming the field', async (_name, query, field) => {
    const reply = await w.get(`/bets?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});

describe('POST /bets', () => {
  it('when the same list is asked with a JSON body, then 200 and the same page', async () => {
    const reply = await w.post('/bets', {
      sortBy: 'USD_PAYOUT',
      sortOrder: 'desc',
      page: 1,
      take: 3,
      where: { gameIdentity: { provider: { slug: { equals: 'Beta Studio' } } } },
    });
    expect(reply.status).toBe(200);
    expect(names(reply.body)).toEqual(['b4', 'b2']);
    expect(reply.body).toMatchObject({ page: 1, take: 3, total: 2, totalPages: 1 });
  });

  it('when page 2 is asked, then the next slice with the same total', async () => {
    const reply = await w.post('/bets', { sortBy: 'CREATED_AT', sortOrder: 'asc', page: 2, take: 3 });
    expect(names(reply.body)).toEqual(['b4']);
    expect(reply.body).toMatchObject({ page: 2, total: 4, totalPages: 2 });
  });

  it.each([
    ['take above 20', { sortBy: 'CREATED_AT', sortOrder: 'asc', take: 21 }, 'body.take'],
    ['missing sortBy', { sortOrder: 'asc' }, 'body.sortBy'],
    ['missing page and take', { sortBy: 'CREATED_AT', sortOrder: 'asc' }, 'body.page'],
    ['malformed decimal', { sortBy: 'CREATED_AT', sortOrder: 'asc', where: { payout: { lt: '1,5' } } }, 'body.where.payout.lt'],
    ['an unknown filter field', { sortBy: 'CREATED_AT', sortOrder: 'asc', where: { hack: 1 } }, 'body.where'],
  ])('when %s, then 400 VALIDATION_FAILED naming the field', async (_name, body, field) => {
    const reply = await w.post('/bets', body);
    expect(reply.status).toBe(400);
    expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});
