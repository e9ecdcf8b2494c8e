import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaderboardsEnv, DAY, type LeaderboardsEnv } from '../support/leaderboards-env.js';

let w: LeaderboardsEnv;
/** Player i (0-based) wagered i + 1 USD: the last one ranks first. */
const players: { id: number; email: string; username: string | null }[] = [];
let settledId = '';

type Board = {
  id: string;
  type: string;
  status: string;
  startDate: string;
  createdAt: string;
  leaderboardUsers?: { position: number; userId: number }[];
  schedule?: unknown;
};
const list = async (query: string) =>
  (await w.get(`/leaderboards${query}`)).body as { data: Board[]; total: number; take: number; page: number; totalPages: number };
const users = async (query = '') => (await w.get(`/leaderboards/${settledId}/users${query}`)).body;

beforeAll(async () => {
  w = await createLeaderboardsEnv('lb_lists');
  await w.enable('DAILY');
  await w.enable('WEEKLY');
  for (let i = 0; i < 53; i += 1) players.push(await w.player([String(i + 1)]));
  await w.caughtUp();
  await w.tick(`${DAY}T06:00:00.000Z`);
  await w.tick('2031-03-11T00:05:00.000Z');
  await w.tick('2031-03-12T00:05:00.000Z');
  settledId = (await list('?status=SETTLEMENT')).data[0]!.id;
}, 120_000);
afterAll(async () => {
  await w?.close();
});

describe('GET /leaderboards', () => {
  it('when listed without options, then every leaderboard, newest created first, paginated, without users or schedule', async () => {
    const page = await list('');
    expect(page).toMatchObject({ total: 4, take: 20, page: 1, totalPages: 1 });
    expect(page.data.map((b) => `${b.type} ${b.startDate.slice(0, 10)} ${b.status}`)).toEqual([
      'DAILY 2031-03-12 ACTIVE',
      'DAILY 2031-03-11 FINISHED',
      expect.any(String),
      expect.any(String),
    ]);
    expect(
      page.data
        .slice(2)
        .map((b) => b.type)
        .sort(),
    ).toEqual(['DAILY', 'WEEKLY']);
    expect(page.data[0]).not.toHaveProperty('leaderboardUsers');
    expect(page.data[0]).not.toHaveProperty('schedule');
  });

  it('when sortOrder is asc, then the oldest created comes first', async () => {
    const dates = (await list('?sortOrder=asc&sortBy=created')).data.map((b) => b.createdAt);
    expect(dates).toEqual([...dates].sort());
  });

  it('when filtered by type or status, then only those', async () => {
    expect((await list('?type=WEEKLY')).data.map((b) => [b.type, b.startDate])).toEqual([['WEEKLY', '2031-03-10T00:00:00.000Z']]);
    expect((await list('?status=FINISHED')).data.map((b) => b.startDate)).toEqual(['2031-03-11T00:00:00.000Z']);
    expect((await list('?type=MONTHLY')).total).toBe(0);
  });

  it('when withUsers is true, then each leaderboard carries its top 50 users in position order', async () => {
    const [board] = (await list('?withUsers=true&status=SETTLEMENT')).data;
    expect(board!.leaderboardUsers).toHaveLength(50);
    expect(board!.leaderboardUsers!.map((u) => u.position)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(board!.leaderboardUsers![0]!.userId).toBe(players[52]!.id);
    expect((await list('?withUsers=true&status=FINISHED')).data[0]!.leaderboardUsers).toEqual([]);
  });

  it('when withSchedule is true, then each leaderboard carries its schedule config', async () => {
    const [board] = (await list('?withSchedule=true&type=WEEKLY')).data;
    expect(board!.schedule).toMatchObject({ id: w.scheduleId('WEEKLY'), enabled: true, config: { type: 'WEEKLY', name: 'WEEKLY race' } });
  });

  it('when paging with take 2, then page 2 holds the rest and totalPages counts them', async () => {
    const page = await list('?take=2&page=2');
    expect(page).toMatchObject({ take: 2, page: 2, total: 4, totalPages: 2 });
    expect(page.data).toHaveLength(2);
  });

  it.each([
    ['take=31', 'query.take'],
    ['take=0', 'query.take'],
    ['sortBy=amount', 'query.sortBy'],
    ['sortOrder=up', 'query.sortOrder'],
    ['status=OPEN', 'query.status'],
    ['type=HOURLY', 'query.type'],
    ['withUsers=yes', 'query.withUsers'],
  ])('when the query has %s, then 400 VALIDATION_FAILED naming the field', async (query, field) => {
    const reply = await w.get(`/leaderboards?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});

describe('GET /leaderboards/:leaderboardId', () => {
  it('when it exists, then the leaderboard; when not, then 404 LEADERBOARD_NOT_FOUND', async () => {
    expect((await w.get(`/leaderboards/${settledId}`)).body).toMatchObject({ id: settledId, status: 'SETTLEMENT', description: 'test' });
    expect((await w.get('/leaderboards/nope')).body.code).toBe('LEADERBOARD_NOT_FOUND');
  });
});

describe('GET /leaderboards/:leaderboardId/users', () => {
  it('when take is 30, then 30 users in position order and totalPages 2; page 2 holds the other 23', async () => {
    const first = await users('?take=30');
    expect(first).toMatchObject({ take: 30, page: 1, total: 53, totalPages: 2 });
    expect(first.data.map((u: { position: number }) => u.position)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect((await users('?take=30&page=2')).data).toHaveLength(23);
  });

  it('when filtered by isWinner, then the three prize positions or the others', async () => {
    expect((await users('?isWinner=true')).data.map((u: { userId: number }) => u.userId)).toEqual([
      players[52]!.id,
      players[51]!.id,
      players[50]!.id,
    ]);
    expect((await users('?isWinner=false')).total).toBe(50);
  });

  it('when filtered by isWaitingForPrice, then winners not fully paid; a fully paid winner drops out', async () => {
    expect((await users('?isWaitingForPrice=true')).total).toBe(3);
    const paid = await w.post('/leaderboards/give-prize', {
      currency: 'USDT',
      leaderboardId: settledId,
      userId: players[52]!.id,
      fullUsdAmount: true,
    });
    expect(paid.status).toBe(201);
    expect((await users('?isWaitingForPrice=true')).data.map((u: { userId: number }) => u.userId)).toEqual([
      players[51]!.id,
      players[50]!.id,
    ]);
    expect((await users('?isWaitingForPrice=false')).total).toBe(51);
  });

  it('when searching by user id or username, then that user; an e-mail address or a LIKE wildcard matches nothing', async () => {
    const p = players[10]!;
    // A number matches the user id exactly, and names containing those digits.
    expect((await users(`?search=${p.id}`)).data.map((u: { userId: number }) => u.userId)).toContain(p.id);
    expect((await users(`?search=${encodeURIComponent(p.username!.toUpperCase())}`)).data.map((u: { userId: number }) => u.userId)).toEqual(
      [p.id],
    );
    // The search is no oracle for who has which address (leaderboard.view holders need not see e-mails).
    expect((await users(`?search=${encodeURIComponent(p.email)}`)).total).toBe(0);
    expect(
      (await users(`?search=${encodeURIComponent(p.email.split('@')[0]!)}`)).data.map((u: { userId: number }) => u.userId),
    ).not.toContain(p.id);
    expect((await users('?search=%25')).total).toBe(0);
  });

  it.each([
    ['take=31', 'query.take'],
    ['isWinner=maybe', 'query.isWinner'],
    ['page=0', 'query.page'],
  ])('when the query has %s, then 400 VALIDATION_FAILED naming the field', async (query, field) => {
    const reply = await w.get(`/leaderboards/${settledId}/users?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('when the leaderboard does not exist, then 404 LEADERBOARD_NOT_FOUND', async () => {
    expect((await w.get('/leaderboards/nope/users')).status).toBe(404);
  });
});

describe('GET /leaderboards/:leaderboardId/users/:userId', () => {
  it('when the user is on the leaderboard, then their standing; when not, then 404 LEADERBOARD_USER_NOT_FOUND', async () => {
    const p = players[0]!;
    expect((await w.get(`/leaderboards/${settledId}/users/${p.id}`)).body).toMatchObject({
      userId: p.id,
      position: 53,
      usdAmount: '1',
      isWinner: false,
    });
    expect((await w.get(`/leaderboards/${settledId}/users/999999`)).body.code).toBe('LEADERBOARD_USER_NOT_FOUND');
    expect((await w.get(`/leaderboards/${settledId}/users/abc`)).status).toBe(400);
  });
});
