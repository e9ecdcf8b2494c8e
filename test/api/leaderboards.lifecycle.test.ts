import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLeaderboardScheduler } from '../../src/leaderboards/leaderboard.scheduler.js';
import { createLeaderboardsEnv, DAY, type LeaderboardsEnv } from '../support/leaderboards-env.js';

let w: LeaderboardsEnv;
const ids: Record<'a' | 'b' | 'c' | 'd' | 'early' | 'late', number> = { a: 0, b: 0, c: 0, d: 0, early: 0, late: 0 };
let boardId = '';

const users = async (query = '') => (await w.get(`/leaderboards/${boardId}/users${query}`)).body;
const status = async () => (await w.get(`/leaderboards/${boardId}`)).body.status as string;
const give = (userId: number, body: Record<string, unknown> = { fullUsdAmount: true }) =>
  w.post('/leaderboards/give-prize', { currency: 'DBC', leaderboardId: boardId, userId, ...body });

beforeAll(async () => {
  w = await createLeaderboardsEnv('lb_lifecycle');
  await w.enable('DAILY');
  ids.a = (await w.player(['30', '20'])).id;
  ids.b = (await w.player(['70'])).id;
  ids.c = (await w.player(['10'])).id;
  ids.d = (await w.player(['40'])).id;
  await w.bet(ids.c, '500', { end: 'ROLLBACK' });
  await w.bet(ids.c, '500', { end: 'ERROR' });
  await w.bet(ids.c, '500', { end: 'CREATED' });
  ids.early = (await w.player(['1000'], '2031-03-09T23:59:59.999Z')).id;
  ids.late = (await w.player(['1000'], '2031-03-11T00:00:00.000Z')).id;
  await w.caughtUp();
});
afterAll(async () => {
  await w?.close();
});

describe('leaderboard scheduler', () => {
  it('when the first tick of the day runs, then the enabled DAILY schedule gets one leaderboard for the UTC day, moved NOT_STARTED -> ACTIVE; disabled schedules get none', async () => {
    const result = await w.tick(`${DAY}T06:00:00.000Z`);
    expect(result.created).toBe(1);
    expect(result.transitions.map((t) => `${t.from}>${t.to}`)).toEqual(['NOT_STARTED>ACTIVE']);
    const { data, total } = await w.boards();
    expect(total).toBe(1);
    boardId = data[0]!.id;
    expect(data[0]).toMatchObject({
      type: 'DAILY',
      status: 'ACTIVE',
      name: 'DAILY race',
      description: 'test',
      startDate: `${DAY}T00:00:00.000Z`,
      endDate: '2031-03-11T00:00:00.000Z',
      scheduleId: w.scheduleId('DAILY'),
      config: {
        type: 'DAILY',
        prizes: [
          { position: 1, usdPrize: 100 },
          { position: 2, usdPrize: 50 },
          { position: 3, usdPrize: 25 },
        ],
      },
    });
  });

  it('when ticks repeat at the same time, then nothing more is created or moved', async () => {
    expect(await w.tick(`${DAY}T06:00:00.000Z`)).toMatchObject({ created: 0, transitions: [] });
    expect((await w.boards()).total).toBe(1);
  });

  it('when the leaderboard is ACTIVE, then standings follow settled bets of the period but nobody is a winner yet, and give-prize is 409 LEADERBOARD_NOT_SETTLED', async () => {
    await w.tick(`${DAY}T12:00:00.000Z`);
    const page = await users();
    expect(page.data.map((u: { userId: number }) => u.userId)).toEqual([ids.b, ids.a, ids.d, ids.c]);
    expect(page.data.every((u: { isWinner: boolean }) => !u.isWinner)).toBe(true);
    const refused = await give(ids.b);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('LEADERBOARD_NOT_SETTLED');
  });

  it('when the clock reaches endDate, then ACTIVE -> ENDED, the next day gets its own leaderboard, and give-prize is still refused', async () => {
    const result = await w.tick('2031-03-11T00:00:00.000Z');
    expect(result.created).toBe(1);
    expect(result.transitions).toEqual(expect.arrayContaining([{ id: boardId, from: 'ACTIVE', to: 'ENDED' }]));
    expect(await status()).toBe('ENDED');
    expect((await give(ids.b)).body.code).toBe('LEADERBOARD_NOT_SETTLED');
  });

  it('when the settlement delay has not passed, then ENDED stays', async () => {
    await w.tick('2031-03-11T00:00:59.999Z');
    expect(await status()).toBe('ENDED');
  });

  it('when the settlement delay has passed, then ENDED -> SETTLEMENT with users ranked by wagered USD of bets SETTLED inside [start, end) and prizes by position', async () => {
    const result = await w.tick('2031-03-11T00:01:00.000Z');
    expect(result.transitions).toEqual(expect.arrayContaining([{ id: boardId, from: 'ENDED', to: 'SETTLEMENT' }]));
    expect(await status()).toBe('SETTLEMENT');
    const page = await users();
    expect(page.total).toBe(4);
    expect(
      page.data.map((u: Record<string, unknown>) => [
        u.userId,
        u.position,
        u.usdAmount,
        u.isWinner,
        u.remainingUsdPrize,
        u.isPrizeReceived,
      ]),
    ).toEqual([
      [ids.b, 1, '70', true, '100', false],
      [ids.a, 2, '50', true, '50', false],
      [ids.d, 3, '40', true, '25', false],
      [ids.c, 4, '10', false, '0', false],
    ]);
    expect(page.data[0]).toMatchObject({
      id: expect.any(String),
      leaderboardId: boardId,
      user: { isBanned: false, username: expect.any(String), isPrivate: false, avatar: '', vipLevel: 0 },
    });
  });

  it('when a bet settles after settlement, then the settled standings do not change', async () => {
    w.at(`${DAY}T20:00:00.000Z`);
    await w.bet(ids.c, '1000');
    await w.caughtUp();
    await w.tick('2031-03-11T00:02:00.000Z');
    expect((await w.get(`/leaderboards/${boardId}/users/${ids.c}`)).body).toMatchObject({ position: 4, usdAmount: '10' });
  });

  it('when a loser is paid, then 409 LEADERBOARD_USER_NOT_WINNER', async () => {
    const refused = await give(ids.c);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('LEADERBOARD_USER_NOT_WINNER');
  });

  it('when some winners are still unpaid, then SETTLEMENT stays; when every winner is fully paid, then SETTLEMENT -> FINISHED', async () => {
    expect((await give(ids.b)).status).toBe(201);
    expect((await give(ids.a)).status).toBe(201);
    await w.tick('2031-03-11T01:00:00.000Z');
    expect(await status()).toBe('SETTLEMENT');
    expect((await give(ids.d)).status).toBe(201);
    const result = await w.tick('2031-03-11T01:00:00.000Z');
    expect(result.transitions).toEqual(expect.arrayContaining([{ id: boardId, from: 'SETTLEMENT', to: 'FINISHED' }]));
    expect(await status()).toBe('FINISHED');
  });

  it('when the leaderboard is FINISHED, then nothing moves it and give-prize is 409 PRIZE_ALREADY_RECEIVED', async () => {
    const result = await w.tick('2031-04-30T00:00:00.000Z');
    expect(result.transitions.filter((t) => t.id === boardId)).toEqual([]);
    expect(await status()).toBe('FINISHED');
    expect((await give(ids.b)).body.code).toBe('PRIZE_ALREADY_RECEIVED');
  });

  it('when a day had bets only at its start, then that day ranks them (end exclusive)', async () => {
    const { data } = await w.boards('?status=SETTLEMENT');
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ startDate: '2031-03-11T00:00:00.000Z' });
    const ranked = (await w.get(`/leaderboards/${data[0]!.id}/users`)).body.data;
    expect(ranked.map((u: { userId: number }) => u.userId)).toEqual([ids.late]);
    expect(ranked[0]).toMatchObject({ position: 1, usdAmount: '1000', isWinner: true, remainingUsdPrize: '100' });
  });

  it('when a day had no players, then one tick after its settlement delay moves it ENDED -> SETTLEMENT -> FINISHED', async () => {
    const empty = (await w.boards('?status=ACTIVE')).data;
    expect(empty).toHaveLength(1);
    const result = await w.tick('2031-05-01T00:01:00.000Z');
    expect(result.transitions.filter((t) => t.id === empty[0]!.id).map((t) => `${t.from}>${t.to}`)).toEqual([
      'ACTIVE>ENDED',
      'ENDED>SETTLEMENT',
      'SETTLEMENT>FINISHED',
    ]);
  });
});

describe('startLeaderboardScheduler', () => {
  it('when started with an injected clock, then it ticks on its own until stopped', async () => {
    const scheduler = startLeaderboardScheduler({
      pool: w.env.pool,
      store: w.env.store,
      ledger: w.env.ledger,
      clock: () => new Date('2031-06-15T12:00:00.000Z'),
      intervalMs: 10,
    });
    try {
      await expect
        .poll(
          async () => (await w.boards('?status=ACTIVE&type=DAILY')).data.map((b) => (b as unknown as { startDate: string }).startDate),
          { timeout: 20_000 },
        )
        .toEqual(['2031-06-15T00:00:00.000Z']);
    } finally {
      await scheduler.stop();
    }
    expect(await scheduler.tick()).toMatchObject({ created: 0, transitions: [] });
  });
});
