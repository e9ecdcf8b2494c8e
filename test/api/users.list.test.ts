import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLeft } from 'fp-ts/lib/Either.js';
import { call, signIn } from '../support/auth-env.js';
import { createListsEnv, type ListsEnv } from '../support/lists-seed.js';

let w: ListsEnv;
type Seeded = { id: number; email: string; username: string | null; password: string };
const u: Record<'A' | 'B' | 'C' | 'D' | 'E', Seeded> = {} as never;
let cCreatedAt = '';

/**
 * Five users, search prefix "lst" (A..E in id order, usernames in reverse order, mixed case):
 * wagered A 1500, B 50, C 12000, D 0, E 0; ggr A 1500, B -50, C 10000; ltv A 2000, B 100, C 20000, E 200;
 * USD balance A 500, B 150, C 10000, D 0, E 200 + 100000 PLATFORM_TOKEN × 0.01 = 1200; VIP A 1, C 2, others 0;
 * D banned, Admin, holds user.view; B then C signed in.
 */
beforeAll(async () => {
  w = await createListsEnv('users_list');
  const names = { A: 'lstZed', B: 'lstYan', C: 'lstXia', D: 'lstwes', E: 'lstVic' } as const;
  for (const key of ['A', 'B', 'C', 'D', 'E'] as const) u[key] = await w.env.makeUser({ username: names[key] });
  cCreatedAt = ((await w.env.users.load(u.C.id)) as { createdAt: string }).createdAt;
  await w.env.users.execute(u.D.id, { type: 'BanUser', data: { reason: 'fraud' } }, w.superadmin.id);
  await w.env.users.execute(u.D.id, { type: 'GrantRole', data: { role: 'Admin' } }, w.superadmin.id);
  await w.env.users.execute(u.D.id, { type: 'GrantPermission', data: { permission: 'user.view' } }, w.superadmin.id);
  await w.deposit(u.A.id, '2000');
  await w.bet(u.A.id, '1500');
  await w.deposit(u.B.id, '100');
  await w.bet(u.B.id, '50', { payout: '100' });
  await w.deposit(u.C.id, '20000');
  await w.bet(u.C.id, '12000', { payout: '2000' });
  await w.deposit(u.E.id, '300');
  const withdrawal = await w.withdraw(u.E.id, '100');
  await w.approve(withdrawal.id);
  await w.completeWithdrawal(withdrawal.id);
  const set = await w.ledger.setBalance({ userId: u.E.id, adminUserId: w.superadmin.id, currencyId: 'PLATFORM_TOKEN', balance: '100000' });
  if (isLeft(set)) throw new Error(JSON.stringify(set.left));
  await w.caughtUp();
  await signIn(w.env, u.B);
  await signIn(w.env, u.C);
}, 60_000);
afterAll(async () => {
  await w?.close();
});

const ids = (body: { data: { id: number }[] }) => body.data.map((x) => x.id);
const order = (...keys: (keyof typeof u)[]) => keys.map((k) => u[k].id);
const list = async (query: string) => {
  const reply = await w.get(`/user/all?search=lst&${query}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
};

describe('GET /user/all', () => {
  it('when a SuperAdmin lists users, then a page of full user records with take, page, total and totalPages', async () => {
    const body = await list('sortBy=id&sortOrder=asc');
    expect(body).toMatchObject({ take: 20, page: 1, total: 5, totalPages: 1 });
    expect(ids(body)).toEqual(order('A', 'B', 'C', 'D', 'E'));
    const a = body.data[0];
    expect(a).toMatchObject({
      id: u.A.id,
      username: 'lstZed',
      email: u.A.email,
      exp: '1500',
      vipLevel: 1,
      mfaSecret: null,
      kyc: null,
      isBanned: false,
      banReason: null,
      isPrivate: false,
      isStaff: false,
      canUseChat: true,
      isTest: false,
      isBot: false,
      customMinAffiliateLevel: 0,
      gamePlatformId: null,
      gamePlatformTradeLink: null,
      identityProviderEmail: null,
      emailVerified: false,
      lastLoginAt: null,
      affiliateCodeId: null,
      isEmailNotificationsEnabled: true,
      isStreamer: false,
      isStreamerMode: false,
      isVideoCreator: false,
      notes: [],
      permissions: [],
      roles: [],
    });
    expect(typeof a.avatar).toBe('string');
    expect(a.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(a).not.toHaveProperty('usdBalance');
    expect(a).not.toHaveProperty('statsUsd');
  });

  it.each([
    ['id', ['A', 'B', 'C', 'D', 'E'], ['E', 'D', 'C', 'B', 'A']],
    ['username', ['E', 'D', 'C', 'B', 'A'], ['A', 'B', 'C', 'D', 'E']],
    ['createdAt', ['A', 'B', 'C', 'D', 'E'], ['E', 'D', 'C', 'B', 'A']],
    ['totalWagered', ['D', 'E', 'B', 'A', 'C'], ['C', 'A', 'B', 'E', 'D']],
    ['ggr', ['B', 'D', 'E', 'A', 'C'], ['C', 'A', 'E', 'D', 'B']],
    ['totalLoss', ['B', 'D', 'E', 'A', 'C'], ['C', 'A', 'E', 'D', 'B']],
    ['vipLevel', ['B', 'D', 'E', 'A', 'C'], ['C', 'A', 'E', 'D', 'B']],
    ['ltv', ['D', 'B', 'E', 'A', 'C'], ['C', 'A', 'E', 'B', 'D']],
    ['balance', ['D', 'B', 'A', 'E', 'C'], ['C', 'E', 'A', 'B', 'D']],
    ['lastLoginAt', ['B', 'C', 'A', 'D', 'E'], ['C', 'B', 'E', 'D', 'A']],
  ] as const)(
    'when sorted by %s, then ascending and descending orders are exact (ties by id, missing values last)',
    async (sortBy, asc, desc) => {
      expect(ids(await list(`sortBy=${sortBy}&sortOrder=asc`))).toEqual(order(...asc));
      expect(ids(await list(`sortBy=${sortBy}&sortOrder=desc`))).toEqual(order(...desc));
    },
  );

  it('when sorted by email, then the order is the case-insensitive order of the e-mails', async () => {
    const expected = (Object.keys(u) as (keyof typeof u)[]).sort((x, y) => (u[x].email.toLowerCase() < u[y].email.toLowerCase() ? -1 : 1));
    expect(ids(await list('sortBy=email&sortOrder=asc'))).toEqual(order(...expected));
    expect(ids(await list('sortBy=email&sortOrder=desc'))).toEqual(order(...expected.reverse()));
  });

  it.each([
    ['where[vipLevel][gte]=1', ['A', 'C']],
    ['where[vipLevel][equals]=0', ['B', 'D', 'E']],
    ['where[statsUsd][totalWagered][gt]=1000', ['A', 'C']],
    ['where[statsUsd][totalWagered][lte]=50', ['B', 'D', 'E']],
    ['where[statsUsd][ltv][gte]=2000', ['A', 'C']],
    ['where[statsUsd][ltv][lt]=150', ['B', 'D']],
    ['where[balancePlatformToken][amount][gt]=0', ['E']],
    [`where=${encodeURIComponent(JSON.stringify({ statsUsd: { ltv: { gt: '100', lt: '20000' } } }))}`, ['A', 'E']],
    ['isBanned=true', ['D']],
    ['isBanned=false', ['A', 'B', 'C', 'E']],
    ['role=Admin', ['D']],
  ] as const)('when filtered by %s, then exactly the matching users', async (filter, expected) => {
    expect(ids(await list(`sortBy=id&sortOrder=asc&${filter}`))).toEqual(order(...expected));
  });

  it('when filtered by createdAt, then users created from that time on', async () => {
    expect(ids(await list(`sortBy=id&sortOrder=asc&where[createdAt][gte]=${encodeURIComponent(cCreatedAt)}`))).toEqual(
      order('C', 'D', 'E'),
    );
  });

  it('when searching by a username part in another case, an e-mail or an id, then those users', async () => {
    const by = async (search: string) => ids((await w.get(`/user/all?sortBy=id&sortOrder=asc&search=${encodeURIComponent(search)}`)).body);
    expect(await by('LSTX')).toEqual(order('C'));
    expect(await by(u.B.email.toUpperCase())).toEqual(order('B'));
    expect(await by(String(u.E.id))).toContain(u.E.id);
    expect(await by('%')).toEqual([]);
  });

  it('when the flags ask for permissions, roles, balance and USD stats and refuse notes, then exactly those fields come along', async () => {
    const body = await list(
      'sortBy=id&sortOrder=asc&withPermissions=true&withRoles=true&withNotes=false&withBalance=true&withStatsUsd=true',
    );
    const [a, , c, d, e] = body.data;
    expect(d).toMatchObject({
      permissions: ['user.view'],
      roles: [
        { role: 'User', userId: u.D.id },
        { role: 'Admin', userId: u.D.id },
      ],
      isBanned: true,
      banReason: 'fraud',
    });
    expect(a).not.toHaveProperty('notes');
    expect(a.usdBalance).toEqual({ total: '500', currencies: [{ currencyId: 'DBC', balance: '500', usdBalance: '500' }] });
    expect(e.usdBalance.total).toBe('1200');
    expect(c.statsUsd).toMatchObject({
      totalWagered: '12000',
      totalPayouts: '2000',
      totalDeposits: '20000',
      totalWithdraws: '0',
      ltv: '20000',
      ggr: '10000',
      totalLoss: '10000',
      totalBets: 1,
    });
    expect(c.statsUsd.firstDepositAt).toMatch(/^\d{4}-/);
    expect(d.statsUsd).toMatchObject({ totalWagered: '0', totalBets: 0, firstDepositAt: null, lastWageredAt: null });
    expect(e.statsUsd).toMatchObject({ totalDeposits: '300', totalWithdraws: '100', ltv: '200' });
  });

  it('when paging with take 2, then page 2 holds the third and fourth users', async () => {
    const body = await list('sortBy=id&sortOrder=asc&take=2&page=2');
    expect(body).toMatchObject({ take: 2, page: 2, total: 5, totalPages: 3 });
    expect(ids(body)).toEqual(order('C', 'D'));
  });

  it.each([
    ['sortBy=id&sortOrder=asc&take=21', 'query.take'],
    ['sortOrder=asc', 'query.sortBy'],
    ['sortBy=wagered&sortOrder=asc', 'query.sortBy'],
    ['sortBy=id&sortOrder=up', 'query.sortOrder'],
    ['sortBy=id&sortOrder=asc&role=Root', 'query.role'],
    ['sortBy=id&sortOrder=asc&isBanned=yes', 'query.isBanned'],
    ['sortBy=id&sortOrder=asc&where[statsUsd][ltv][gt]=1e5', 'query.where.statsUsd.ltv.gt'],
    ['sortBy=id&sortOrder=asc&where[balancePlatformToken][amount][lt]=abc', 'query.where.balancePlatformToken.amount.lt'],
    ['sortBy=id&sortOrder=asc&where[vipLevel][gte]=1.5', 'query.where.vipLevel.gte'],
    ['sortBy=id&sortOrder=asc&where[createdAt][gte]=yesterday', 'query.where.createdAt.gte'],
    ['sortBy=id&sortOrder=asc&where[kyc][level]=1', 'query.where'],
  ])('when the query is %s, then 400 VALIDATION_FAILED naming %s', async (query, field) => {
    const reply = await w.get(`/user/all?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(reply.body.details.map((x: { field: string }) => x.field)).toContain(field);
  });

  it('when an Admin without SuperAdmin asks, then 403', async () => {
    const token = await w.tokenFor({ roles: ['User', 'Admin'], permissions: ['user.view'] });
    expect((await w.get('/user/all?sortBy=id&sortOrder=asc', token)).status).toBe(403);
    expect((await call(w.env.adminUrl, 'GET', '/user/all?sortBy=id&sortOrder=asc')).status).toBe(401);
  });
});

describe('POST /user/all', () => {
  it('when the same fields come as a JSON body, then 201 with the same page', async () => {
    const reply = await w.post('/user/all', {
      sortBy: 'ltv',
      sortOrder: 'desc',
      search: 'lst',
      withStatsUsd: true,
      where: { statsUsd: { ltv: { gte: '100' } } },
    });
    expect(reply.status).toBe(201);
    expect(ids(reply.body)).toEqual(order('C', 'A', 'E', 'B'));
    expect(reply.body.data[0].statsUsd.ltv).toBe('20000');
  });

  it.each([
    [{ sortBy: 'id', sortOrder: 'asc', take: 21 }, 'body.take'],
    [{ sortOrder: 'asc' }, 'body.sortBy'],
    [{ sortBy: 'id', sortOrder: 'asc', role: 'Boss' }, 'body.role'],
    [{ sortBy: 'id', sortOrder: 'asc', where: { statsUsd: { totalWagered: { gte: '10,5' } } } }, 'body.where.statsUsd.totalWagered.gte'],
  ])('when the body is %j, then 400 naming %s', async (body, field) => {
    const reply = await w.post('/user/all', body);
    expect(reply.status).toBe(400);
    expect(reply.body.details.map((x: { field: string }) => x.field)).toContain(field);
  });
});
