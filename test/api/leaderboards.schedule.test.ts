import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaderboardsEnv, type LeaderboardsEnv } from '../support/leaderboards-env.js';

let w: LeaderboardsEnv;
beforeAll(async () => {
  w = await createLeaderboardsEnv('lb_schedule');
});
afterAll(async () => {
  await w?.close();
});

describe('GET /leaderboards/schedule', () => {
  it('when the back office starts, then DAILY, WEEKLY and MONTHLY schedules exist, disabled, with example prizes', async () => {
    const reply = await w.get('/leaderboards/schedule');
    expect(reply.status).toBe(200);
    expect(reply.body.map((s: { config: { type: string } }) => s.config.type)).toEqual(['DAILY', 'WEEKLY', 'MONTHLY']);
    for (const s of reply.body) {
      expect(s).toMatchObject({
        id: expect.any(String),
        enabled: false,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        leaderboards: [],
      });
      expect(s.config).toMatchObject({ name: expect.any(String), description: expect.any(String) });
      expect(s.config.prizes[0]).toEqual({ position: 1, usdPrize: expect.any(Number) });
    }
  });
});

describe('GET /leaderboards/schedule/:id', () => {
  it('when the schedule exists, then it is answered; when not, then 404 LEADERBOARD_SCHEDULE_NOT_FOUND', async () => {
    const id = w.scheduleId('WEEKLY');
    expect((await w.get(`/leaderboards/schedule/${id}`)).body).toMatchObject({ id, config: { type: 'WEEKLY' } });
    const missing = await w.get('/leaderboards/schedule/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('LEADERBOARD_SCHEDULE_NOT_FOUND');
  });
});

describe('POST /leaderboards/schedule/:id', () => {
  const valid = {
    enabled: true,
    name: 'Monthly madness',
    description: 'Top wagerers',
    prizes: [
      { position: 2, usdPrize: 10.5 },
      { position: 1, usdPrize: 20 },
    ],
  };

  it('when the body is valid, then 201 with the updated schedule, prizes in position order', async () => {
    const id = w.scheduleId('MONTHLY');
    const reply = await w.post(`/leaderboards/schedule/${id}`, valid);
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      id,
      enabled: true,
      config: {
        type: 'MONTHLY',
        name: 'Monthly madness',
        description: 'Top wagerers',
        prizes: [
          { position: 1, usdPrize: 20 },
          { position: 2, usdPrize: 10.5 },
        ],
      },
    });
    expect((await w.get(`/leaderboards/schedule/${id}`)).body.config.name).toBe('Monthly madness');
  });

  it.each([
    ['position 0', { prizes: [{ position: 0, usdPrize: 1 }] }, 'body.prizes.0.position'],
    ['position 51', { prizes: [{ position: 51, usdPrize: 1 }] }, 'body.prizes.0.position'],
    ['usdPrize -1', { prizes: [{ position: 1, usdPrize: -1 }] }, 'body.prizes.0.usdPrize'],
    [
      'a duplicate position',
      {
        prizes: [
          { position: 3, usdPrize: 1 },
          { position: 3, usdPrize: 2 },
        ],
      },
      'body.prizes.1.position',
    ],
    ['usdPrize with 9 decimals', { prizes: [{ position: 1, usdPrize: 0.123456789 }] }, 'body.prizes.0.usdPrize'],
    ['no enabled', { enabled: undefined }, 'body.enabled'],
    ['no prizes', { prizes: undefined }, 'body.prizes'],
  ])('when the body has %s, then 400 VALIDATION_FAILED naming the field and nothing changed', async (_label, over, field) => {
    const id = w.scheduleId('DAILY');
    const before = (await w.get(`/leaderboards/schedule/${id}`)).body;
    const reply = await w.post(`/leaderboards/schedule/${id}`, { ...valid, ...over });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await w.get(`/leaderboards/schedule/${id}`)).body).toEqual(before);
  });

  it('when the schedule does not exist, then 404', async () => {
    expect((await w.post('/leaderboards/schedule/nope', valid)).status).toBe(404);
  });

  it('when an admin holds leaderboard.view but not leaderboard.edit, then 403', async () => {
    const token = await w.tokenFor({ roles: ['User', 'Admin'], permissions: ['leaderboard.view'] });
    expect((await w.post(`/leaderboards/schedule/${w.scheduleId('DAILY')}`, valid, token)).status).toBe(403);
  });
});
