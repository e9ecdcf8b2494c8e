import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitsStream } from '../../src/domain/limits/limits.events.js';
import { createAdminApp } from '../../src/http/admin-app.js';
import { createLogger } from '../../src/infra/logger.js';
import { bearer, call, createAuthEnv, signIn, type AuthEnv } from '../support/auth-env.js';
import { fundedUser, signedInAdmin } from '../support/money-env.js';

let env: AuthEnv;
let editor: Awaited<ReturnType<typeof signedInAdmin>>;
let viewer: Awaited<ReturnType<typeof signedInAdmin>>;
let internalUrl: string;
let server: Server;
const TOKEN = 'limits-service-token-0123456789';

beforeAll(async () => {
  env = await createAuthEnv('deposit-loss');
  [editor, viewer] = await Promise.all([signedInAdmin(env, ['user-limit.edit']), signedInAdmin(env, ['user-limit.view'])]);
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
const internal = (path: string, body: Record<string, unknown>) =>
  call(internalUrl, 'POST', `/internal${path}`, { headers: { 'x-service-token': TOKEN }, body });
const placeBet = (userId: number, usdAmount: string) =>
  internal('/bets', {
    id: `dl-bet-${Date.now().toString(36)}-${++seq}`,
    userId,
    roundId: `round-${seq}`,
    gameId: 7,
    currencyId: 'BTC',
    amount: '0.0001',
    usdAmount,
    gameIdentity: { name: 'Dice', slug: 'dice', type: 'original', provider: { name: 'House' } },
  });
const requestDeposit = (userId: number, usdAmount: string, txHash?: string) =>
  internal('/deposits', {
    externalId: `dl-dep-${++seq}`,
    userId,
    providerId: 'PROVIDER_A',
    networkId: 'BTC',
    currencyId: 'BTC',
    amount: '0.001',
    usdAmount,
    ...(txHash ? { txHash } : {}),
  });
const limitOf = (body: { limits: { kind: string; window: string }[] }, kind: string, window: string) =>
  body.limits.find((l) => l.kind === kind && l.window === window);

describe('PUT /user/limits (the player, public API)', () => {
  it('when the player sets a loss limit, then it applies at once; a raise is pending 24 hours, shown with its time', async () => {
    const user = await fundedUser(env);
    const { accessToken } = await signIn(env, user);
    const put = (limit: string | null) =>
      call(env.publicUrl, 'PUT', '/user/limits', { headers: bearer(accessToken), body: { kind: 'loss', window: '24h', limit } });
    const set = await put('5');
    expect(set.status).toBe(200);
    expect(limitOf(set.body, 'loss', '24h')).toMatchObject({ limit: '5', pending: null });
    const raised = await put('50');
    expect(limitOf(raised.body, 'loss', '24h')).toMatchObject({ limit: '5', pending: { limit: '50', effectiveAt: expect.any(String) } });
    const read = await call(env.publicUrl, 'GET', '/user/limits', { headers: bearer(accessToken) });
    expect(read.body).toEqual(raised.body);
    expect(read.body.limits).toHaveLength(6);
    expect((await env.store.readStream(limitsStream(user.id))).map((e) => e.data.adminUserId)).toEqual([null, null]);
    // The bet guard reads it in the append: a bet past it is refused with its code.
    expect((await placeBet(user.id, '4')).status).toBe(201);
    expect(await placeBet(user.id, '2')).toMatchObject({ status: 403, body: { code: 'LOSS_LIMIT_EXCEEDED' } });
  });

  it('when the body is not a limit, then 400 naming the field; signed out, then 401', async () => {
    const user = await env.makeUser();
    const { accessToken } = await signIn(env, user);
    const bad = await call(env.publicUrl, 'PUT', '/user/limits', {
      headers: bearer(accessToken),
      body: { kind: 'loss', window: '1y', limit: '5' },
    });
    expect(bad).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'body.window' })] },
    });
    expect((await call(env.publicUrl, 'GET', '/user/limits')).status).toBe(401);
  });
});

describe('POST /user-limits/deposit-loss-limits (the back office)', () => {
  it('when an admin sets a deposit limit, then it is recorded with the admin and a deposit request past it is refused', async () => {
    const user = await env.makeUser();
    const set = await editor.as('POST', '/user-limits/deposit-loss-limits', {
      body: { userId: user.id, kind: 'deposit', window: '7d', limit: '100' },
    });
    expect(set.status).toBe(200);
    expect(limitOf(set.body, 'deposit', '7d')).toMatchObject({ limit: '100', pending: null });
    const [event] = await env.store.readStream(limitsStream(user.id));
    expect(event).toMatchObject({
      type: 'GamblingLimitSet',
      data: { kind: 'deposit', window: '7d', value: '100', adminUserId: editor.id },
    });
    expect((await viewer.as('GET', `/user-limits/deposit-loss-limits/${user.id}`)).body).toEqual(set.body);
    expect((await requestDeposit(user.id, '60')).status).toBe(201);
    const refused = await requestDeposit(user.id, '60');
    expect(refused).toMatchObject({ status: 403, body: { code: 'DEPOSIT_LIMIT_EXCEEDED' } });
    expect(refused.body.message).toContain('7d');
    // Already on chain: recorded (flagged over limit) rather than refused; completing it holds the money.
    const onChain = await requestDeposit(user.id, '60', '0xfeed');
    expect(onChain.status).toBe(201);
    const done = await internal(`/deposits/${onChain.body.id}/complete`, {});
    expect(done.status).toBe(200);
    expect(await env.ledger.balances(user.id)).toEqual([]);
  });

  it('when the admin lacks user-limit.edit, then 403 and nothing is recorded; an unknown user is 404', async () => {
    const user = await env.makeUser();
    const body = { userId: user.id, kind: 'loss', window: '30d', limit: '1' };
    expect((await viewer.as('POST', '/user-limits/deposit-loss-limits', { body })).status).toBe(403);
    expect(await env.store.readStream(limitsStream(user.id))).toEqual([]);
    expect((await editor.as('POST', '/user-limits/deposit-loss-limits', { body: { ...body, userId: 99_999_999 } })).status).toBe(404);
  });
});
