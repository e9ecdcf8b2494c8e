import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitsStream } from '../../src/domain/limits/limits.events.js';
import { createAdminApp } from '../../src/http/admin-app.js';
import { createLogger } from '../../src/infra/logger.js';
import { call, createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { balanceOf, eventCount, fundedUser, signedInAdmin } from '../support/money-env.js';

let env: AuthEnv;
let editor: Awaited<ReturnType<typeof signedInAdmin>>;
let lifter: Awaited<ReturnType<typeof signedInAdmin>>;
let viewer: Awaited<ReturnType<typeof signedInAdmin>>;
let internalUrl: string;
let server: Server;
const TOKEN = 'limits-service-token-0123456789';
const FUTURE = '2099-01-01T00:00:00.000Z';

beforeAll(async () => {
  env = await createAuthEnv('limits');
  [editor, lifter, viewer] = await Promise.all([
    signedInAdmin(env, ['user-limit.edit']),
    signedInAdmin(env, ['user-limit.delete']),
    signedInAdmin(env, ['user-limit.view']),
  ]);
  // The internal ledger API on the same ledger, as game servers call it.
  const app = createAdminApp({
    logger: createLogger({ level: 'silent' }),
    pool: env.pool,
    store: env.store,
    ledger: env.ledger,
    internalApiToken: TOKEN,
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  internalUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => {
    server?.closeAllConnections();
    server?.close(r);
  });
  await env?.close();
});

let seq = 0;
const placeBet = (userId: number, amount: string, usdAmount: string) =>
  call(internalUrl, 'POST', '/internal/bets', {
    headers: { 'x-service-token': TOKEN },
    body: {
      id: `bet-${Date.now().toString(36)}-${++seq}`,
      userId,
      roundId: `round-${seq}`,
      gameId: 7,
      currencyId: 'BTC',
      amount,
      usdAmount,
      gameIdentity: { name: 'Dice', slug: 'dice', type: 'original', provider: { name: 'House' } },
    },
  });
const limitEvents = async (userId: number) => (await env.store.readStream(limitsStream(userId))).map((e) => e.type);

describe('POST /user-limits/user-exclusion', () => {
  it('when an admin excludes a user until a future date, then 201 the self-exclusion, recorded with the admin, and GET shows it', async () => {
    const user = await env.makeUser();
    const reply = await editor.as('POST', '/user-limits/user-exclusion', {
      body: { excludeUntil: '2099-01-01T02:00:00+02:00', userId: user.id },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      id: expect.any(Number),
      userId: user.id,
      expiresAt: FUTURE,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const [event] = await env.store.readStream(limitsStream(user.id));
    expect(event).toMatchObject({
      type: 'SelfExclusionSet',
      data: { exclusionId: reply.body.id, excludeUntil: FUTURE, adminUserId: editor.id },
    });
    expect((await viewer.as('GET', `/user-limits/user-exclusion/${user.id}`)).body).toEqual(reply.body);
  });

  it('when the exclusion would shorten an active one, then 409 SELF_EXCLUSION_ACTIVE; extending keeps the id', async () => {
    const user = await env.makeUser();
    const first = await editor.as('POST', '/user-limits/user-exclusion', {
      body: { excludeUntil: '2098-01-01T00:00:00Z', userId: user.id },
    });
    const shorter = await editor.as('POST', '/user-limits/user-exclusion', {
      body: { excludeUntil: '2097-01-01T00:00:00Z', userId: user.id },
    });
    expect(shorter).toMatchObject({ status: 409, body: { code: 'SELF_EXCLUSION_ACTIVE' } });
    const longer = await editor.as('POST', '/user-limits/user-exclusion', { body: { excludeUntil: FUTURE, userId: user.id } });
    expect(longer.body).toMatchObject({ id: first.body.id, expiresAt: FUTURE });
  });

  const INVALID: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
    ['a past date', { excludeUntil: '2020-01-01T00:00:00Z' }, 'body.excludeUntil'],
    ['a date without time', { excludeUntil: '2099-01-01' }, 'body.excludeUntil'],
    ['a missing excludeUntil', { excludeUntil: undefined }, 'body.excludeUntil'],
    ['a missing userId', { userId: undefined }, 'body.userId'],
    ['a userId as a string', { userId: '5' }, 'body.userId'],
  ];
  it.each(INVALID)(
    'when the body has %s, then 400 VALIDATION_FAILED naming the field and nothing is recorded',
    async (_name, over, field) => {
      const user = await env.makeUser();
      const before = await eventCount(env);
      const reply = await editor.as('POST', '/user-limits/user-exclusion', { body: { excludeUntil: FUTURE, userId: user.id, ...over } });
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_FAILED');
      expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await eventCount(env)).toBe(before);
    },
  );

  it('when the user does not exist, then 404 USER_NOT_FOUND; without user-limit.edit, then 403', async () => {
    expect((await editor.as('POST', '/user-limits/user-exclusion', { body: { excludeUntil: FUTURE, userId: 99_999_999 } })).body.code).toBe(
      'USER_NOT_FOUND',
    );
    const user = await env.makeUser();
    expect((await viewer.as('POST', '/user-limits/user-exclusion', { body: { excludeUntil: FUTURE, userId: user.id } })).status).toBe(403);
    expect(await limitEvents(user.id)).toEqual([]);
  });
});

describe('DELETE /user-limits/user-exclusion', () => {
  it('when an admin lifts the active exclusion, then 200 the lifted exclusion (expired now), GET answers {} and the user may bet again', async () => {
    const user = await fundedUser(env);
    const set = await editor.as('POST', '/user-limits/user-exclusion', { body: { excludeUntil: FUTURE, userId: user.id } });
    const lifted = await lifter.as('DELETE', '/user-limits/user-exclusion', { body: { userId: user.id } });
    expect(lifted.status).toBe(200);
    expect(lifted.body).toMatchObject({ id: set.body.id, userId: user.id, createdAt: set.body.createdAt });
    expect(Date.parse(lifted.body.expiresAt)).toBeLessThanOrEqual(Date.now());
    expect(await limitEvents(user.id)).toEqual(['SelfExclusionSet', 'SelfExclusionLifted']);
    expect((await viewer.as('GET', `/user-limits/user-exclusion/${user.id}`)).body).toEqual({});
    expect((await placeBet(user.id, '0.1', '5')).status).toBe(201);
  });

  it('when no exclusion is active, then 404 SELF_EXCLUSION_NOT_FOUND; a missing userId is 400; user-limit.edit alone is 403', async () => {
    const user = await env.makeUser();
    expect(await lifter.as('DELETE', '/user-limits/user-exclusion', { body: { userId: user.id } })).toMatchObject({
      status: 404,
      body: { code: 'SELF_EXCLUSION_NOT_FOUND' },
    });
    const invalid = await lifter.as('DELETE', '/user-limits/user-exclusion', { body: {} });
    expect(invalid).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'body.userId' })] },
    });
    expect((await editor.as('DELETE', '/user-limits/user-exclusion', { body: { userId: user.id } })).status).toBe(403);
  });
});

describe('GET /user-limits/user-exclusion/:id', () => {
  it('when the user has no exclusion, then 200 {}; an unknown user is 404; a non-numeric id is 400; without user-limit.view 403', async () => {
    const user = await env.makeUser();
    expect(await viewer.as('GET', `/user-limits/user-exclusion/${user.id}`)).toMatchObject({ status: 200, body: {} });
    expect((await viewer.as('GET', '/user-limits/user-exclusion/99999999')).status).toBe(404);
    expect((await viewer.as('GET', '/user-limits/user-exclusion/abc')).body.details[0].field).toBe('params.id');
    expect((await editor.as('GET', `/user-limits/user-exclusion/${user.id}`)).status).toBe(403);
  });
});

describe('POST /user-limits/gambling-limits', () => {
  it('when an admin sets a bet limit, then 201 the gambling limits (a USD decimal string), recorded with the admin; a change keeps the id', async () => {
    const user = await env.makeUser();
    const reply = await editor.as('POST', '/user-limits/gambling-limits', { body: { betLimit: '25.5', userId: user.id } });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      betLimit: '25.5',
      userId: user.id,
      id: expect.any(Number),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const [event] = await env.store.readStream(limitsStream(user.id));
    expect(event).toMatchObject({ type: 'BetLimitSet', data: { limitId: reply.body.id, betLimit: '25.5', adminUserId: editor.id } });
    const changed = await editor.as('POST', '/user-limits/gambling-limits', { body: { betLimit: '0', userId: user.id } });
    expect(changed.body).toMatchObject({ id: reply.body.id, betLimit: '0', createdAt: reply.body.createdAt });
  });

  const INVALID: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
    ['a malformed decimal', { betLimit: '1,5' }, 'body.betLimit'],
    ['a negative limit', { betLimit: '-1' }, 'body.betLimit'],
    ['more than 8 decimals', { betLimit: '0.123456789' }, 'body.betLimit'],
    ['a limit as a number', { betLimit: 5 }, 'body.betLimit'],
    ['a missing betLimit', { betLimit: undefined }, 'body.betLimit'],
    ['a missing userId', { userId: undefined }, 'body.userId'],
  ];
  it.each(INVALID)(
    'when the body has %s, then 400 VALIDATION_FAILED naming the field and nothing is recorded',
    async (_name, over, field) => {
      const user = await env.makeUser();
      const before = await eventCount(env);
      const reply = await editor.as('POST', '/user-limits/gambling-limits', { body: { betLimit: '10', userId: user.id, ...over } });
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_FAILED');
      expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await eventCount(env)).toBe(before);
    },
  );
});

describe('GET /user-limits/gambling-limits/:id', () => {
  it('when a limit is set, then 200 it; with none, 200 {}; without user-limit.view 403', async () => {
    const user = await env.makeUser();
    expect((await viewer.as('GET', `/user-limits/gambling-limits/${user.id}`)).body).toEqual({});
    const set = await editor.as('POST', '/user-limits/gambling-limits', { body: { betLimit: '3', userId: user.id } });
    expect(await viewer.as('GET', `/user-limits/gambling-limits/${user.id}`)).toMatchObject({ status: 200, body: set.body });
    expect((await lifter.as('GET', `/user-limits/gambling-limits/${user.id}`)).status).toBe(403);
  });
});

describe('POST /internal/bets (limits enforced by the ledger)', () => {
  it('when the user is self-excluded, then 403 USER_SELF_EXCLUDED and nothing is debited', async () => {
    const user = await fundedUser(env);
    await editor.as('POST', '/user-limits/user-exclusion', { body: { excludeUntil: FUTURE, userId: user.id } });
    const before = await eventCount(env);
    expect(await placeBet(user.id, '0.1', '1')).toMatchObject({ status: 403, body: { code: 'USER_SELF_EXCLUDED' } });
    expect(await balanceOf(env, user.id)).toBe('10');
    expect(await eventCount(env)).toBe(before);
  });

  it("when the bet's usdAmount is above the bet limit, then 403 BET_LIMIT_EXCEEDED and nothing is debited; at the limit it is placed", async () => {
    const user = await fundedUser(env);
    await editor.as('POST', '/user-limits/gambling-limits', { body: { betLimit: '100', userId: user.id } });
    expect(await placeBet(user.id, '0.1', '100.00000001')).toMatchObject({ status: 403, body: { code: 'BET_LIMIT_EXCEEDED' } });
    expect(await balanceOf(env, user.id)).toBe('10');
    expect((await placeBet(user.id, '0.1', '100')).status).toBe(201);
    expect(await balanceOf(env, user.id)).toBe('9.9');
  });

  it('when the bet limit is zero, then every bet is refused', async () => {
    const user = await fundedUser(env);
    await editor.as('POST', '/user-limits/gambling-limits', { body: { betLimit: '0', userId: user.id } });
    expect((await placeBet(user.id, '0.00000001', '0.00000001')).body.code).toBe('BET_LIMIT_EXCEEDED');
  });

  it('when the user is banned, then 403 USER_BANNED and nothing is debited', async () => {
    const user = await fundedUser(env);
    const banned = await env.users.execute(user.id, { type: 'BanUser', data: { reason: 'fraud' } }, editor.id);
    expect(banned._tag).toBe('Right');
    const before = await eventCount(env);
    expect(await placeBet(user.id, '0.1', '1')).toMatchObject({ status: 403, body: { code: 'USER_BANNED' } });
    expect(await balanceOf(env, user.id)).toBe('10');
    expect(await eventCount(env)).toBe(before);
  });
});
