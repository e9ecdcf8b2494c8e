import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, BYPASS, call, totpNow, unique, type Reply } from '../support/auth-env.js';
import { ADMIN, sharedKeys } from '../support/deployment.js';
import { authorizationRequestOf, startFakeGoogle, type FakeGoogle, type FakeUser } from '../support/fake-google.js';
import { startOwnPostgres, type OwnPostgres } from '../support/own-services.js';
import { SERVICE_TEST_ENV, startService, type ServiceProcess } from '../support/service-process.js';
import { makeTestCa, type TestCa } from '../support/test-ca.js';

const FRONT = SERVICE_TEST_ENV.FRONTEND_ORIGIN!;
const captcha = { 'x-captcha-token': BYPASS };
const cookiesOf = (reply: Reply): Record<string, string> =>
  Object.fromEntries(Object.entries(reply.cookies).map(([name, c]) => [name, c.value]));

/**
 * The real service process (`src/main.ts`) signing in with a stand-in OpenID provider served over HTTPS, whose
 * certificate a test CA signed; the service trusts that CA the way a deployment trusts a private one
 * (NODE_EXTRA_CA_CERTS). An identity signs into an account only once linked from inside a session of that account.
 */
describe('GET /auth/google and /auth/google/link: an identity proves possession of the account', () => {
  let ca: TestCa;
  let google: FakeGoogle;
  let pg: OwnPostgres;
  let service: ServiceProcess;
  let dataDir: string;
  let api = '';

  beforeAll(async () => {
    ca = makeTestCa();
    google = await startFakeGoogle({ tls: ca.server });
    pg = await startOwnPostgres();
    dataDir = mkdtempSync(join(tmpdir(), 'identity-linking-'));
    service = await startService('identity-linking', {
      ...SERVICE_TEST_ENV,
      ...sharedKeys(),
      ROLES: 'public-api,admin-api',
      DATABASE_URL: pg.url,
      DATA_DIR: dataDir,
      NODE_EXTRA_CA_CERTS: ca.caFile,
      GOOGLE_ISSUER_URL: google.issuer,
      GOOGLE_CLIENT_ID: google.clientId,
      GOOGLE_CLIENT_SECRET: google.clientSecret,
      SUPERADMIN_EMAIL: ADMIN.email,
      SUPERADMIN_USERNAME: ADMIN.username,
      SUPERADMIN_PASSWORD: ADMIN.password,
    });
    api = service.publicUrl!;
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await google?.close();
    await pg?.destroy();
    ca?.remove();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const signUp = async (): Promise<{ id: number; email: string; password: string; token: string; cookies: Record<string, string> }> => {
    const email = `${unique('p')}@example.test`.toLowerCase();
    const password = 'player password 2026';
    const reply = await call(api, 'POST', '/auth/sign-up', {
      headers: captcha,
      body: { email, password, username: unique('P'), country: 'DE' },
    });
    expect(reply.status).toBe(201);
    return { id: reply.body.user.id as number, email, password, token: reply.body.accessToken as string, cookies: cookiesOf(reply) };
  };

  /** The browser's round trip through the provider: start (`path`), approve as `user`, come back to the callback. */
  const throughGoogle = async (path: string, user: FakeUser, cookies: Record<string, string> = {}): Promise<Reply> => {
    const start = await call(api, 'GET', path, { cookies });
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get('location')!);
    expect(authorize.href).toMatch(/^https:\/\/localhost:\d+\/authorize\?/);
    // What the browser would carry to the provider's /authorize page; the provider keeps it until the token request.
    const request = authorizationRequestOf(authorize);
    const back = new URL(google.approve(request, user));
    return call(api, 'GET', `${back.pathname}${back.search}`, { cookies: { ...cookies, ...cookiesOf(start) } });
  };

  const meWith = async (reply: Reply): Promise<number | undefined> => {
    const token = reply.cookies.access_token?.value;
    if (!token) return undefined;
    return (await call(api, 'GET', '/user/me', { headers: bearer(token) })).body.id as number;
  };

  const enableMfa = async (token: string): Promise<string> => {
    const setup = await call(api, 'POST', '/auth/mfa/setup', { headers: bearer(token) });
    const secret = setup.body.secret as string;
    const now = await totpNow();
    const enable = await call(api, 'POST', '/auth/mfa/enable', {
      headers: bearer(token),
      body: { code: await generate({ secret, epoch: now - 30 }) },
    });
    expect(enable.status).toBe(200);
    return secret;
  };

  it('when a Google identity verified for an existing account signs in, then no session of that account is made', async () => {
    const player = await signUp();
    const back = await throughGoogle('/auth/google', { sub: unique('g'), email: player.email, email_verified: true });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`${FRONT}/login?error=AUTH_IDENTITY_NOT_LINKED`);
    expect(back.cookies.access_token).toBeUndefined();
    expect(back.cookies.refresh_token).toBeUndefined();
  });

  it('when the account has MFA on, then a verified identity for its e-mail gets no session either', async () => {
    const player = await signUp();
    await enableMfa(player.token);
    const back = await throughGoogle('/auth/google', { sub: unique('g'), email: player.email, email_verified: true });
    expect(back.headers.get('location')).toBe(`${FRONT}/login?error=AUTH_IDENTITY_NOT_LINKED`);
    expect(back.cookies.access_token).toBeUndefined();
  });

  it('when the SuperAdmin is impersonated by a verified e-mail, then no session, and no second account takes the address', async () => {
    const back = await throughGoogle('/auth/google', { sub: unique('g'), email: ADMIN.email, email_verified: true });
    expect(back.headers.get('location')).toBe(`${FRONT}/login?error=AUTH_IDENTITY_NOT_LINKED`);
    expect(await meWith(back)).toBeUndefined();
  });

  it('when a signed-in player links Google, then that identity signs into their account afterwards', async () => {
    const player = await signUp();
    const sub = unique('g');
    const linked = await throughGoogle('/auth/google/link', { sub, email: 'other@example.test', email_verified: true }, player.cookies);
    expect(linked.status).toBe(303);
    expect(linked.headers.get('location')).toBe(`${FRONT}/account?linked=google`);
    const signedIn = await throughGoogle('/auth/google', { sub, email: 'other@example.test', email_verified: true });
    expect(signedIn.headers.get('location')).toBe(FRONT);
    expect(await meWith(signedIn)).toBe(player.id);
    // The same identity cannot be linked to a second account.
    const other = await signUp();
    const again = await throughGoogle('/auth/google/link', { sub }, other.cookies);
    expect(again.headers.get('location')).toBe(`${FRONT}/account?error=AUTH_IDENTITY_IN_USE`);
  });

  it('when a linked identity signs into an account with MFA, then it is asked for the code like the password sign-in', async () => {
    const player = await signUp();
    const secret = await enableMfa(player.token);
    const signedInWithMfa = await call(api, 'POST', '/auth/sign-in', { headers: captcha, body: player });
    const code = await generate({ secret, epoch: await totpNow() });
    const session = await call(api, 'POST', '/auth/verify-2fa', { body: { code, mfaToken: signedInWithMfa.body.mfaToken } });
    expect(session.status).toBe(200);
    const sub = unique('g');
    const linked = await throughGoogle('/auth/google/link', { sub }, cookiesOf(session));
    expect(linked.headers.get('location')).toBe(`${FRONT}/account?linked=google`);

    const back = await throughGoogle('/auth/google', { sub });
    expect(back.cookies.access_token).toBeUndefined();
    const location = new URL(back.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(`${FRONT}/login/mfa`);
    const mfaToken = new URLSearchParams(location.hash.slice(1)).get('mfaToken')!;
    expect((await call(api, 'POST', '/auth/verify-2fa', { body: { code: '000000', mfaToken } })).status).toBe(401);
    const next = await generate({ secret, epoch: (await totpNow()) + 30 });
    const verified = await call(api, 'POST', '/auth/verify-2fa', { body: { code: next, mfaToken } });
    expect(verified.status).toBe(200);
    expect(verified.body.user.id).toBe(player.id);
  });

  it('when a staff account has linked Google, then it still signs in only with its password (no provider allowed for staff)', async () => {
    const admin = await call(api, 'POST', '/auth/sign-in', { headers: captcha, body: ADMIN });
    expect(admin.status).toBe(200);
    const sub = unique('g');
    const linked = await throughGoogle('/auth/google/link', { sub }, cookiesOf(admin));
    expect(linked.headers.get('location')).toBe(`${FRONT}/account?linked=google`);
    const back = await throughGoogle('/auth/google', { sub });
    expect(back.headers.get('location')).toBe(`${FRONT}/login?error=AUTH_STAFF_PASSWORD_ONLY`);
    expect(back.cookies.access_token).toBeUndefined();
  });

  it('when the link is started without a session, then it is refused before the provider is asked', async () => {
    const anonymous = await call(api, 'GET', '/auth/google/link');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('location')).toBeNull();
  });
});
