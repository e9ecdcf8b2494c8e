import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInWithIdentity } from '../../src/http/identity-providers/sign-in.js';
import {
  createPostgresLoginStateStore,
  createPostgresSeenNonceStore,
  loginStatesMigration,
} from '../../src/http/identity-providers/login-state.js';
import { steamRoutes } from '../../src/http/identity-providers/steam.js';
import { createPublicApp } from '../../src/http/public-app.js';
import { migrate } from '../../src/infra/migrate.js';
import { createLogger } from '../../src/infra/logger.js';
import { call, createAuthEnv, FRONTEND, type AuthEnv } from '../support/auth-env.js';
import { startFakeSteam, type FakeSteam } from '../support/fake-steam.js';

/** The real public app, the real user and session code, and the Steam stand-in: the whole redirect flow. */
describe('GET /auth/steam, end to end', () => {
  let env: AuthEnv;
  let steam: FakeSteam;
  let server: Server;
  let origin = '';

  beforeAll(async () => {
    env = await createAuthEnv('idp_e2e');
    await migrate(env.pool, [loginStatesMigration]);
    steam = await startFakeSteam();
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const logger = createLogger({ level: 'silent' });
    const routes = steamRoutes({
      stateStore: createPostgresLoginStateStore(env.pool),
      seenNonces: createPostgresSeenNonceStore(env.pool),
      onIdentity: createSignInWithIdentity(env.kit),
      secureCookie: false,
      logger,
      openIdEndpoint: steam.endpoint,
      claimedIdHost: steam.claimedIdHost,
      realm: `${origin}/`,
      returnTo: `${origin}/auth/steam/return`,
    });
    server.on(
      'request',
      createPublicApp({ logger, pool: env.pool, store: env.store, auth: { kit: env.kit, ledger: env.ledger }, routers: [routes] }),
    );
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await steam.close();
    await env.close();
  });

  const signInThroughSteam = async (steamId: string) => {
    const start = await call(origin, 'GET', '/auth/steam');
    expect(start.status).toBe(302);
    const loginCookies = Object.fromEntries(Object.entries(start.cookies).map(([k, v]) => [k, v.value]));
    const back = new URL(steam.approve(start.headers.get('location')!, { steamId }));
    return call(origin, 'GET', `${back.pathname}${back.search}`, { cookies: loginCookies });
  };

  it('when a new Steam user comes back signed, then a user without a username is created, signed in, and sent to set one up', async () => {
    const users = async () => Number((await env.pool.query('SELECT count(*) FROM user_keys')).rows[0].count);
    const before = await users();
    const back = await signInThroughSteam('76561198000000001');
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`${FRONTEND}/setup-username`);
    expect(back.cookies.access_token?.raw).toMatch(/HttpOnly/i);
    expect(back.cookies.refresh_token?.raw).toMatch(/SameSite=Lax/i);
    expect(await users()).toBeGreaterThan(before);
    const me = await call(origin, 'GET', '/user/me', { cookies: { access_token: back.cookies.access_token!.value } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: null });
    expect(steam.checks.at(-1)?.answer).toBe(true);
  });

  it('when the same Steam id signs in again, then it is the same user and no other is created', async () => {
    const first = await signInThroughSteam('76561198000000002');
    const idOf = async (token: string) => (await call(origin, 'GET', '/user/me', { cookies: { access_token: token } })).body.id as number;
    const firstId = await idOf(first.cookies.access_token!.value);
    const keys = Number((await env.pool.query('SELECT count(*) FROM user_keys')).rows[0].count);
    const second = await signInThroughSteam('76561198000000002');
    expect(second.status).toBe(303);
    expect(await idOf(second.cookies.access_token!.value)).toBe(firstId);
    expect(Number((await env.pool.query('SELECT count(*) FROM user_keys')).rows[0].count)).toBe(keys);
  });
});
