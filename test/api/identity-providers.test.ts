import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorHandler, requestContext } from '../../src/http/http-errors.js';
import {
  createMemoryLoginStateStore,
  createMemorySeenNonceStore,
  createPostgresLoginStateStore,
  createPostgresSeenNonceStore,
  googleRoutes,
  loginStatesMigration,
  steamRoutes,
  type LoginStateStore,
  type SeenNonceStore,
  type ExternalIdentity,
} from '../../src/http/identity-providers/index.js';
import { createLogger } from '../../src/infra/logger.js';
import { migrate } from '../../src/infra/migrate.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { startFakeGoogle, type AuthorizationRequest, type FakeGoogle } from '../support/fake-google.js';
import { startFakeSteam, type FakeSteam } from '../support/fake-steam.js';

/** A browser: keeps the cookies it is given, follows no redirect by itself. */
class Browser {
  readonly cookies = new Map<string, string>();
  async get(url: string): Promise<Response> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (/max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
}

const logLines: string[] = [];
const logger = createLogger({ level: 'warn', destination: { write: (line: string) => void logLines.push(line) } });
type LogLine = { msg: string; reason?: string; err?: { message: string } };
const logged = (msg: string): LogLine[] => logLines.map((l) => JSON.parse(l) as LogLine).filter((l) => l.msg === msg);
/** Why the last refusal happened, from the log (the response says only AUTH_PROVIDER_FAILED). */
const lastRefusal = (): string | undefined => logged('identity provider login refused').at(-1)?.reason;
/** What openid-client or the provider call threw last. */
const lastProviderError = (): string | undefined => logged('identity provider call failed').at(-1)?.err?.message;

let db: TestDb;
let google: FakeGoogle;
let steam: FakeSteam;
let base = '';
let frontendFailureBase = '';
let clockOffsetMs = 0;
const servers: Server[] = [];
const identities: ExternalIdentity[] = [];

const listen = async (failureRedirect?: string): Promise<string> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const pool = db.pool();
  const common = {
    stateStore: createPostgresLoginStateStore(pool),
    onIdentity: async (identity: ExternalIdentity, _req: express.Request, res: express.Response) => {
      identities.push(identity);
      res.status(200).json({ signedIn: identity.subject });
    },
    secureCookie: false,
    logger,
    failureRedirect,
    now: () => Date.now() + clockOffsetMs,
  };
  const app = express();
  app.use(requestContext(logger));
  app.use(
    googleRoutes({
      ...common,
      issuerUrl: google.issuer,
      clientId: google.clientId,
      clientSecret: google.clientSecret,
      redirectUri: `${origin}/auth/google/callback`,
      allowInsecure: true,
    }),
  );
  app.use(
    steamRoutes({
      ...common,
      openIdEndpoint: steam.endpoint,
      realm: `${origin}/`,
      returnTo: `${origin}/auth/steam/return`,
      seenNonces: createPostgresSeenNonceStore(pool),
      claimedIdHost: steam.claimedIdHost,
    }),
  );
  app.use(errorHandler(logger));
  server.on('request', app);
  return origin;
};

beforeAll(async () => {
  db = await createTestDb('idp');
  await migrate(db.pool(), [loginStatesMigration]);
  [google, steam] = await Promise.all([startFakeGoogle(), startFakeSteam()]);
  base = await listen();
  frontendFailureBase = await listen('https://play.example/login');
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await Promise.all([google.close(), steam.close()]);
  await db.drop();
});

beforeEach(() => {
  identities.length = 0;
  clockOffsetMs = 0;
  google.misbehave(undefined);
});

const expectRefused = async (res: Response, reason: string): Promise<void> => {
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ statusCode: 400, code: 'AUTH_PROVIDER_FAILED', message: 'Sign-in with the identity provider failed' });
  expect(lastRefusal()).toBe(reason);
  expect(identities).toEqual([]);
};

describe('GET /auth/google, GET /auth/google/callback', () => {
  /** The browser starts a login and lands on the provider's page: the request the provider saw. */
  const start = async (browser: Browser, origin = base): Promise<AuthorizationRequest> => {
    const res = await browser.get(`${origin}/auth/google`);
    expect(res.status).toBe(302);
    await fetch(res.headers.get('location') ?? '');
    const request = google.authorizations.at(-1);
    if (!request) throw new Error('the provider saw no authorization request');
    return request;
  };
  const withParam = (url: string, name: string, value: string | undefined): string => {
    const u = new URL(url);
    if (value === undefined) u.searchParams.delete(name);
    else u.searchParams.set(name, value);
    return u.href;
  };

  it('when the user approves, then onIdentity gets the verified sub and e-mail, and the login cookie is cleared', async () => {
    const browser = new Browser();
    const started = await browser.get(`${base}/auth/google`);
    const setCookie = started.headers.getSetCookie().join('\n');
    expect(setCookie).toMatch(/^google_login=[\w-]{43}; Max-Age=600; Path=\/auth\/google\/callback; HttpOnly; SameSite=Lax$/);
    await fetch(started.headers.get('location') ?? '');
    const request = google.authorizations.at(-1) as AuthorizationRequest;
    expect(request).toMatchObject({
      clientId: google.clientId,
      redirectUri: `${base}/auth/google/callback`,
      responseType: 'code',
      scope: 'openid email profile',
      codeChallengeMethod: 'S256',
    });
    expect(request.codeChallenge).toMatch(/^[\w-]{43}$/);
    expect(request.state).not.toBe('');
    expect(request.nonce).not.toBe('');

    const res = await browser.get(google.approve(request));
    expect(res.status).toBe(200);
    expect(identities).toEqual([{ provider: 'google', subject: '110169484474386276334', email: 'ada@example.com', emailVerified: true }]);
    expect(browser.cookies.has('google_login')).toBe(false);
  });

  it('when the provider does not vouch for the e-mail, then emailVerified is false', async () => {
    const browser = new Browser();
    const res = await browser.get(google.approve(await start(browser), { sub: 's-2', email: 'bob@example.com', email_verified: false }));
    expect(res.status).toBe(200);
    expect(identities).toEqual([{ provider: 'google', subject: 's-2', email: 'bob@example.com', emailVerified: false }]);
  });

  it('when the state is missing or unknown, then refused', async () => {
    const browser = new Browser();
    await expectRefused(await browser.get(withParam(google.approve(await start(browser)), 'state', undefined)), 'state-mismatch');
    await expectRefused(await browser.get(withParam(google.approve(await start(browser)), 'state', 'made-up')), 'state-mismatch');
  });

  it('when a completed callback is replayed with its cookie, then refused (state is single-use)', async () => {
    const browser = new Browser();
    const callback = google.approve(await start(browser));
    const loginCookie = browser.cookies.get('google_login') ?? '';
    expect((await browser.get(callback)).status).toBe(200);
    identities.length = 0;
    browser.cookies.set('google_login', loginCookie);
    await expectRefused(await browser.get(callback), 'unknown-login');
  });

  it("when the callback arrives in a browser without the login cookie, or with another login's, then refused", async () => {
    const victim = new Browser();
    const attacker = new Browser();
    const attackersCallback = google.approve(await start(attacker));
    await expectRefused(await victim.get(attackersCallback), 'no-login-cookie');
    await start(victim);
    await expectRefused(await victim.get(attackersCallback), 'state-mismatch');
  });

  it("when a code issued for another login is injected with this login's state, then the token endpoint refuses it (PKCE)", async () => {
    const attacker = new Browser();
    const victim = new Browser();
    const attackersRequest = await start(attacker);
    const victimsRequest = await start(victim);
    const injected = google.approve({ ...attackersRequest, state: victimsRequest.state });
    await expectRefused(await victim.get(injected), 'code-exchange-failed');
    expect(google.tokenRefusals.at(-1)).toBe('pkce-mismatch');
  });

  it.each([
    ['wrong-nonce', /"nonce" claim/],
    ['wrong-audience', /"aud"/],
    ['expired', /"exp"/],
    ['bad-signature', /signature verification failed/],
    ['wrong-issuer', /"iss"/],
  ] as const)('when the ID token comes %s, then refused', async (how, error) => {
    const browser = new Browser();
    const request = await start(browser);
    google.misbehave(how);
    const refusals = google.tokenRefusals.length;
    await expectRefused(await browser.get(google.approve(request)), 'code-exchange-failed');
    expect(google.tokenRefusals.length).toBe(refusals);
    expect(lastProviderError()).toMatch(error);
  });

  it('when the user cancels at the provider, then refused', async () => {
    const browser = new Browser();
    const request = await start(browser);
    const callback = `${request.redirectUri}?error=access_denied&state=${encodeURIComponent(request.state)}`;
    await expectRefused(await browser.get(callback), 'code-exchange-failed');
    expect(lastProviderError()).toMatch(/access_denied|authorization response/i);
  });

  it('when the browser comes back after more than 10 minutes, then refused', async () => {
    const browser = new Browser();
    const callback = google.approve(await start(browser));
    clockOffsetMs = 10 * 60_000 + 1000;
    await expectRefused(await browser.get(callback), 'login-expired');
  });

  it('when a failure page is configured, then a refusal redirects there with the error code', async () => {
    const browser = new Browser();
    const callback = google.approve(await start(browser, frontendFailureBase));
    const res = await browser.get(withParam(callback, 'state', 'made-up'));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://play.example/login?error=AUTH_PROVIDER_FAILED');
    expect(identities).toEqual([]);
  });
});

describe('GET /auth/steam, GET /auth/steam/return', () => {
  const start = async (browser: Browser): Promise<string> => {
    const res = await browser.get(`${base}/auth/steam`);
    expect(res.status).toBe(302);
    return res.headers.get('location') ?? '';
  };
  const STEAM_ID = '76561197960287930';

  it('when the user signs in, then check_authentication confirms it and onIdentity gets the SteamID64', async () => {
    const browser = new Browser();
    const setup = new URL(await start(browser));
    expect(`${setup.origin}${setup.pathname}`).toBe(steam.endpoint);
    const returnTo = setup.searchParams.get('openid.return_to') ?? '';
    expect(Object.fromEntries(setup.searchParams)).toEqual({
      'openid.ns': 'http://specs.openid.net/auth/2.0',
      'openid.mode': 'checkid_setup',
      'openid.claimed_id': 'http://specs.openid.net/auth/2.0/identifier_select',
      'openid.identity': 'http://specs.openid.net/auth/2.0/identifier_select',
      'openid.return_to': returnTo,
      'openid.realm': `${base}/`,
    });
    expect(returnTo).toMatch(new RegExp(`^${base}/auth/steam/return\\?state=[\\w-]{43}$`));

    const back = steam.approve(setup.href);
    const res = await browser.get(back);
    expect(res.status).toBe(200);
    expect(identities).toEqual([{ provider: 'steam', subject: STEAM_ID }]);
    const check = steam.checks.at(-1);
    expect(check?.answer).toBe(true);
    const echoed = new URL(back).searchParams;
    echoed.delete('state');
    echoed.set('openid.mode', 'check_authentication');
    expect(Object.fromEntries(check?.params ?? [])).toEqual(Object.fromEntries(echoed));
    expect(browser.cookies.has('steam_login')).toBe(false);
  });

  /** A refusal the route reaches by itself, without asking the provider. */
  const expectRefusedLocally = async (browser: Browser, url: string, reason: string): Promise<void> => {
    const checks = steam.checks.length;
    await expectRefused(await browser.get(url), reason);
    expect(steam.checks.length).toBe(checks);
  };

  it("when the state is missing, unknown, or the cookie is absent or another browser's, then refused", async () => {
    const browser = new Browser();
    await expectRefusedLocally(browser, steam.tamper(steam.approve(await start(browser)), { state: undefined }), 'state-mismatch');
    await expectRefusedLocally(browser, steam.tamper(steam.approve(await start(browser)), { state: 'made-up' }), 'state-mismatch');
    const attacker = new Browser();
    const attackersReturn = steam.approve(await start(attacker));
    await expectRefusedLocally(new Browser(), attackersReturn, 'no-login-cookie');
    await start(browser);
    await expectRefusedLocally(browser, attackersReturn, 'state-mismatch');
  });

  it('when a completed return is replayed with its cookie, then refused (state is single-use)', async () => {
    const browser = new Browser();
    const back = steam.approve(await start(browser));
    const loginCookie = browser.cookies.get('steam_login') ?? '';
    expect((await browser.get(back)).status).toBe(200);
    identities.length = 0;
    browser.cookies.set('steam_login', loginCookie);
    await expectRefusedLocally(browser, back, 'unknown-login');
  });

  it('when the signed return_to is not the one this login sent, then refused', async () => {
    const browser = new Browser();
    const back = steam.approve(await start(browser), { returnTo: `${base}/auth/steam/return?state=another-login` });
    await expectRefusedLocally(browser, back, 'return-to-mismatch');
  });

  it('when the assertion names another op_endpoint, then refused', async () => {
    const browser = new Browser();
    await expectRefusedLocally(
      browser,
      steam.approve(await start(browser), { opEndpoint: 'https://evil.example/openid/login' }),
      'op-endpoint-mismatch',
    );
  });

  it.each([
    ['identity differs from claimed_id', { identity: `https://steamcommunity.com/openid/id/76561197960287931` }],
    ['another host', { claimedId: `https://evil.example/openid/id/${STEAM_ID}` }],
    ['a look-alike host', { claimedId: `https://steamcommunity.com.evil.example/openid/id/${STEAM_ID}` }],
    ['http', { claimedId: `http://steamcommunity.com/openid/id/${STEAM_ID}` }],
    ['16 digits', { steamId: '7656119796028793' }],
    ['18 digits', { steamId: '765611979602879300' }],
    ['a trailing path', { claimedId: `https://steamcommunity.com/openid/id/${STEAM_ID}/` }],
  ])('when the claimed id has %s, then refused', async (_case, options) => {
    const browser = new Browser();
    await expectRefusedLocally(browser, steam.approve(await start(browser), options), 'claimed-id-invalid');
  });

  it('when a response nonce is presented a second time, then refused', async () => {
    const first = new Browser();
    const back = steam.approve(await start(first));
    expect((await first.get(back)).status).toBe(200);
    identities.length = 0;
    const nonce = new URL(back).searchParams.get('openid.response_nonce') ?? '';
    const second = new Browser();
    await expectRefusedLocally(second, steam.approve(await start(second), { nonce }), 'nonce-replayed');
  });

  it.each([
    ['older than 5 minutes', { issuedAt: new Date(Date.now() - 6 * 60_000) }, 'nonce-stale'],
    ['from the future', { issuedAt: new Date(Date.now() + 5 * 60_000) }, 'nonce-stale'],
    ['without a timestamp', { nonce: 'abcdef' }, 'nonce-malformed'],
    ['with an impossible date', { nonce: '2024-13-40T00:00:00Zabc' }, 'nonce-malformed'],
  ])('when the response nonce is %s, then refused', async (_case, options, reason) => {
    const browser = new Browser();
    await expectRefusedLocally(browser, steam.approve(await start(browser), options), reason);
  });

  it.each(['op_endpoint', 'claimed_id', 'identity', 'return_to', 'response_nonce', 'assoc_handle'])(
    'when openid.signed leaves out %s, then refused',
    async (left) => {
      const browser = new Browser();
      const signed = ['signed', 'op_endpoint', 'claimed_id', 'identity', 'return_to', 'response_nonce', 'assoc_handle'].filter(
        (f) => f !== left,
      );
      await expectRefusedLocally(browser, steam.approve(await start(browser), { signed }), 'unsigned-fields');
    },
  );

  it('when a parameter is repeated, or the mode is not id_res, then refused', async () => {
    const browser = new Browser();
    const back = new URL(steam.approve(await start(browser)));
    back.searchParams.append('openid.claimed_id', `https://steamcommunity.com/openid/id/76561197960287931`);
    await expectRefusedLocally(browser, back.href, 'repeated-parameter');
    await expectRefusedLocally(
      browser,
      steam.tamper(steam.approve(await start(browser)), { 'openid.mode': 'cancel' }),
      'not-a-positive-assertion',
    );
  });

  it('when check_authentication answers is_valid:false (fields changed after signing), then refused', async () => {
    const browser = new Browser();
    const other = 'https://steamcommunity.com/openid/id/76561197960287931';
    const back = steam.tamper(steam.approve(await start(browser)), { 'openid.claimed_id': other, 'openid.identity': other });
    await expectRefused(await browser.get(back), 'check-authentication-refused');
    expect(steam.checks.at(-1)?.answer).toBe(false);
  });
});

describe.each([
  [
    'PostgreSQL',
    (): [LoginStateStore, SeenNonceStore] => [createPostgresLoginStateStore(db.pool()), createPostgresSeenNonceStore(db.pool())],
  ],
  ['memory', (): [LoginStateStore, SeenNonceStore] => [createMemoryLoginStateStore(), createMemorySeenNonceStore()]],
])('login state stores (%s)', (_name, make) => {
  it('when a record is taken, then a second take finds nothing; an expired record is never found', async () => {
    const [states] = make();
    await states.put('a', { state: 's', createdAt: 1 }, 60_000);
    expect(await states.take('a')).toEqual({ state: 's', createdAt: 1 });
    expect(await states.take('a')).toBeUndefined();
    await states.put('b', { state: 's' }, -1);
    expect(await states.take('b')).toBeUndefined();
  });

  it('when a nonce is presented again, then it is not a first sighting until it expires', async () => {
    const [, nonces] = make();
    expect(await nonces.firstSighting('n1', 60_000)).toBe(true);
    expect(await nonces.firstSighting('n1', 60_000)).toBe(false);
    expect(await nonces.firstSighting('n2', -1)).toBe(true);
    expect(await nonces.firstSighting('n2', 60_000)).toBe(true);
  });
});
