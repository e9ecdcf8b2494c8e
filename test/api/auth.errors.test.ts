import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BYPASS,
  bearer,
  call,
  createAuthEnv,
  footprint,
  GOOD_CAPTCHA,
  signIn,
  unique,
  type AuthEnv,
  type Reply,
} from '../support/auth-env.js';

let env: AuthEnv;
beforeAll(async () => {
  env = await createAuthEnv('auth_err');
});
afterAll(async () => {
  await env?.close();
});

const captcha = { 'x-captcha-token': GOOD_CAPTCHA };
const signUpBody = (over: Record<string, unknown> = {}) => ({
  email: `${unique('s')}@example.test`,
  password: 'Tr0ub4dor&3-horse',
  username: unique('U'),
  country: 'DE',
  ...over,
});

/** Runs `act`; asserts status and code, and that no event, user, credential or session was written. */
const refused = async (status: number, code: string, act: () => Promise<Reply>): Promise<Reply> => {
  const before = await footprint(env.pool);
  const reply = await act();
  expect(reply.status).toBe(status);
  expect(reply.body).toMatchObject({ statusCode: status, code });
  expect(reply.headers.getSetCookie()).toEqual([]);
  expect(await footprint(env.pool)).toEqual(before);
  return reply;
};
const signUp = (body: unknown, headers: Record<string, string> = captcha, base = env.publicUrl) =>
  call(base, 'POST', '/auth/sign-up', { body, headers });
const signInCall = (body: unknown, headers: Record<string, string> = captcha, base = env.publicUrl) =>
  call(base, 'POST', '/auth/sign-in', { body, headers });

describe('captcha', () => {
  it('when x-captcha-token is absent, then 400 AUTH_RECAPTCHA_TOKEN_MISSING on sign-up and sign-in, and nothing is created', async () => {
    const user = await env.makeUser();
    await refused(400, 'AUTH_RECAPTCHA_TOKEN_MISSING', () => signUp(signUpBody(), {}));
    await refused(400, 'AUTH_RECAPTCHA_TOKEN_MISSING', () => signInCall({ email: user.email, password: user.password }, {}));
  });

  it('when the siteverify endpoint rejects the token, then 400 AUTH_INVALID_CAPTCHA; it was asked with secret, response and remoteip', async () => {
    const user = await env.makeUser();
    await refused(400, 'AUTH_INVALID_CAPTCHA', () => signUp(signUpBody(), { 'x-captcha-token': 'forged' }));
    await refused(400, 'AUTH_INVALID_CAPTCHA', () =>
      signInCall({ email: user.email, password: user.password }, { 'x-captcha-token': 'forged' }),
    );
    const last = env.captcha.requests.at(-1)!;
    expect(last.get('response')).toBe('forged');
    expect(last.get('secret')).toBeTruthy();
    expect(last.get('remoteip')).toBeTruthy();
  });

  it('when the local bypass literal is used outside APP_ENV=local, then 400 AUTH_INVALID_CAPTCHA; in local it passes', async () => {
    const user = await env.makeUser();
    await refused(400, 'AUTH_INVALID_CAPTCHA', () => signUp(signUpBody(), { 'x-captcha-token': BYPASS }));
    await refused(400, 'AUTH_INVALID_CAPTCHA', () =>
      signInCall({ email: user.email, password: user.password }, { 'x-captcha-token': BYPASS }),
    );
    const local = await env.publicWith({
      captcha: { verifyUrl: env.captcha.url, secret: undefined, localBypassToken: BYPASS, appEnv: 'local' },
    });
    expect((await signInCall({ email: user.email, password: user.password }, { 'x-captcha-token': BYPASS }, local)).status).toBe(200);
  });
});

describe('credentials', () => {
  it('when the password is wrong or the e-mail unknown, then the same 401 AUTH_INVALID_CREDENTIALS and no session', async () => {
    const user = await env.makeUser();
    const wrong = await refused(401, 'AUTH_INVALID_CREDENTIALS', () => signInCall({ email: user.email, password: 'not the password' }));
    const unknown = await refused(401, 'AUTH_INVALID_CREDENTIALS', () =>
      signInCall({ email: 'nobody@example.test', password: 'whatever123' }),
    );
    expect(unknown.body.message).toBe(wrong.body.message);
  });

  it('when an MFA challenge token is presented as an access token, then 401 AUTH_MFA_REQUIRED', async () => {
    const user = await env.makeUser();
    const mfaToken = await env.kit.tokens.signMfaChallenge(user.id);
    await refused(401, 'AUTH_MFA_REQUIRED', () => call(env.publicUrl, 'GET', '/user/me', { headers: bearer(mfaToken) }));
    await refused(401, 'AUTH_MFA_REQUIRED', () => call(env.publicUrl, 'DELETE', '/session/log-out/current', { headers: bearer(mfaToken) }));
  });

  it('when the account is banned, then sign-in is refused 403 USER_BANNED without a session', async () => {
    const admin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    const user = await env.makeUser();
    await env.users.execute(user.id, { type: 'BanUser', data: { reason: 'fraud' } }, admin.id);
    await refused(403, 'USER_BANNED', () => signInCall({ email: user.email, password: user.password }));
  });
});

describe('geo rules', () => {
  it('when the trusted country header names a blocked country, then 403 AUTH_GEO_BLOCKED on sign-up and sign-in', async () => {
    const user = await env.makeUser();
    await refused(403, 'AUTH_GEO_BLOCKED', () => signUp(signUpBody(), { ...captcha, 'cf-ipcountry': 'KP' }));
    await refused(403, 'AUTH_GEO_BLOCKED', () =>
      signInCall({ email: user.email, password: user.password }, { ...captcha, 'cf-ipcountry': 'kp' }),
    );
    expect((await signInCall({ email: user.email, password: user.password }, { ...captcha, 'x-country': 'KP' })).status).toBe(200);
  });
});

describe('POST /auth/sign-up: conflicts and validation', () => {
  it('when the e-mail or username is taken in any case, then 409 AUTH_USER_EXISTS and nothing is created', async () => {
    const user = await env.makeUser();
    await refused(409, 'AUTH_USER_EXISTS', () => signUp(signUpBody({ email: user.email.toUpperCase() })));
    await refused(409, 'AUTH_USER_EXISTS', () => signUp(signUpBody({ username: user.username!.toUpperCase() })));
  });

  it('when ten sign-ups race for one e-mail, then exactly one is created and the others get 409 AUTH_USER_EXISTS', async () => {
    const email = `${unique('race')}@example.test`;
    const replies = await Promise.all(Array.from({ length: 10 }, () => signUp(signUpBody({ email }))));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 409 && r.body.code === 'AUTH_USER_EXISTS')).toHaveLength(9);
    expect((await env.pool.query(`SELECT 1 FROM user_keys WHERE kind = 'email' AND key = $1`, [email])).rowCount).toBe(1);
  });

  it.each([
    ['a common password', { password: 'password123' }, 'body.password'],
    ['a 7-character password', { password: 'Xy7!abc' }, 'body.password'],
    ['a 129-character password', { password: 'x'.repeat(129) }, 'body.password'],
    ['a username with a symbol', { username: 'bad_name' }, 'body.username'],
    ['a 2-letter username', { username: 'ab' }, 'body.username'],
    ['a country that is not alpha-2', { country: 'DEU' }, 'body.country'],
    ['a malformed e-mail', { email: 'not-an-email' }, 'body.email'],
  ])('when the body has %s, then 400 VALIDATION_FAILED naming the field and nothing is created', async (_name, over, field) => {
    const reply = await refused(400, 'VALIDATION_FAILED', () => signUp(signUpBody(over)));
    expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});

describe('brute force', () => {
  it('when an account fails too often, then 429 TOO_MANY_REQUESTS with Retry-After, even with the right password', async () => {
    const base = await env.publicWith({ throttle: { maxFailuresPerAccount: 3, maxFailuresPerAddress: 1000, windowSeconds: 60 } });
    const user = await env.makeUser();
    for (let i = 0; i < 3; i += 1)
      expect((await signInCall({ email: user.email, password: 'wrong-password' }, captcha, base)).status).toBe(401);
    const blocked = await refused(429, 'TOO_MANY_REQUESTS', () =>
      signInCall({ email: user.email, password: user.password }, captcha, base),
    );
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await signIn(env, user)).reply.status).toBe(200); // another process with its own memory limiter: per-process without Redis
  });

  it('when one address fails across many accounts, then it is blocked with 429', async () => {
    const base = await env.publicWith({ throttle: { maxFailuresPerAccount: 100, maxFailuresPerAddress: 4, windowSeconds: 60 } });
    for (let i = 0; i < 4; i += 1) await signInCall({ email: `${unique('x')}@example.test`, password: 'wrong-password' }, captcha, base);
    await refused(429, 'TOO_MANY_REQUESTS', () =>
      signInCall({ email: `${unique('y')}@example.test`, password: 'wrong-password' }, captcha, base),
    );
  });
});
