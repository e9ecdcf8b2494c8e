import { generate } from 'otplib';
import { bootstrapSuperAdmin } from '../../src/auth/bootstrap.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, createAuthEnv, FRONTEND, GOOD_CAPTCHA, signIn, totpNow, unique, type AuthEnv } from '../support/auth-env.js';

let env: AuthEnv;
beforeAll(async () => {
  env = await createAuthEnv('auth_life');
});
afterAll(async () => {
  await env?.close();
});

const captcha = { 'x-captcha-token': GOOD_CAPTCHA };
const signUpBody = () => ({
  email: `${unique('s')}@Example.test`,
  password: 'Tr0ub4dor&3-horse',
  username: unique('U'),
  country: 'de',
  referrerCode: 'FRIEND1',
});

describe('POST /auth/sign-up', () => {
  it('when the sign-up is valid, then 201 with the user and tokens, both cookies set HttpOnly, SameSite=Lax, Secure, and /user/me answers', async () => {
    const body = signUpBody();
    const reply = await call(env.publicUrl, 'POST', '/auth/sign-up', {
      body,
      headers: { ...captcha, 'user-agent': 'vitest', referer: 'https://ref.example' },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.user).toMatchObject({ username: body.username, country: 'DE', mfaEnabled: false, roles: ['User'] });
    expect(reply.body.accessToken).toEqual(expect.any(String));
    expect(reply.body.refreshToken).toEqual(expect.any(String));
    for (const name of ['access_token', 'refresh_token']) {
      expect(reply.cookies[name]!.raw).toMatch(/HttpOnly/);
      expect(reply.cookies[name]!.raw).toMatch(/SameSite=Lax/);
      expect(reply.cookies[name]!.raw).toMatch(/Secure/);
      expect(reply.cookies[name]!.raw).toMatch(/Path=\//);
    }
    const me = await call(env.publicUrl, 'GET', '/user/me', { cookies: { access_token: reply.cookies.access_token!.value } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: reply.body.user.id,
      username: body.username,
      country: 'DE',
      balances: [],
      kycLevel: 'LEVEL_0',
      mfaEnabled: false,
    });
    const hash = await env.pool.query<{ password_hash: string }>('SELECT password_hash FROM user_credentials WHERE user_id = $1', [
      reply.body.user.id,
    ]);
    expect(hash.rows[0]!.password_hash).toMatch(/^\$argon2id\$/);
    const events = await env.pool.query<{ data: unknown }>(`SELECT data FROM events WHERE stream_id = $1`, [`user-${reply.body.user.id}`]);
    expect(JSON.stringify(events.rows)).not.toContain(body.password);
  });

  it('when the user signed up, then the projector records registration info, the analytics row, the referral and the welcome-bonus job asynchronously', async () => {
    const body = signUpBody();
    const reply = await call(env.publicUrl, 'POST', '/auth/sign-up', {
      body,
      headers: { ...captcha, 'user-agent': 'vitest-ua', 'cf-ipcountry': 'FR' },
    });
    const userId = reply.body.user.id as number;
    await env.pool.query(`INSERT INTO affiliate_codes (code, user_id) VALUES ('friend1', 1) ON CONFLICT DO NOTHING`);
    const projector = env.startProjector();
    const sa = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    const { accessToken } = await signIn(env, sa);
    await expect
      .poll(async () => (await env.pool.query('SELECT 1 FROM welcome_bonus_jobs WHERE user_id = $1', [userId])).rowCount, {
        timeout: 20_000,
      })
      .toBe(1);
    const info = await call(env.adminUrl, 'GET', `/registration-info/${userId}`, { headers: bearer(accessToken) });
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ userId, userAgent: 'vitest-ua', country: 'FR', referrerCode: 'FRIEND1', provider: 'password' });
    const referral = await env.pool.query('SELECT status, referrer_user_id FROM affiliate_referrals WHERE user_id = $1', [userId]);
    expect(referral.rows[0]).toMatchObject({ status: 'RESOLVED', referrer_user_id: '1' });
    expect((await env.pool.query(`SELECT 1 FROM analytics_events WHERE user_id = $1 AND name = 'sign_up'`, [userId])).rowCount).toBe(1);
    const row = await env.pool.query('SELECT username, roles, is_banned FROM users WHERE id = $1', [userId]);
    expect(row.rows[0]).toMatchObject({ username: body.username, roles: ['User'], is_banned: false });
    await projector.stop();
  });
});

describe('POST /auth/sign-in, /auth/refresh, DELETE /session/log-out/current', () => {
  it('when the credentials are right, then 200 {user} with cookies; the e-mail matches regardless of case', async () => {
    const user = await env.makeUser();
    const reply = await call(env.publicUrl, 'POST', '/auth/sign-in', {
      body: { email: user.email.toUpperCase(), password: user.password },
      headers: captcha,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.user).toMatchObject({ id: user.id, username: user.username });
    expect(reply.body.mfaRequired).toBeUndefined();
    expect(reply.cookies.access_token).toBeDefined();
    expect(reply.cookies.refresh_token).toBeDefined();
  });

  it('when the refresh cookie is presented, then the refresh token rotates and the new access token works', async () => {
    const user = await env.makeUser();
    const first = await signIn(env, user);
    const refreshed = await call(env.publicUrl, 'POST', '/auth/refresh', { cookies: { refresh_token: first.refreshToken } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.accessToken).toEqual(expect.any(String));
    const next = refreshed.cookies.refresh_token!.value;
    expect(next).not.toBe(first.refreshToken);
    expect((await call(env.publicUrl, 'GET', '/user/me', { headers: bearer(refreshed.body.accessToken) })).status).toBe(200);
    expect((await call(env.publicUrl, 'POST', '/auth/refresh', { cookies: { refresh_token: next } })).status).toBe(200);
  });

  it('when a rotated refresh token is replayed, then 401 and the whole session is revoked (its access token and newest refresh token stop working)', async () => {
    const user = await env.makeUser();
    const first = await signIn(env, user);
    const rotated = await call(env.publicUrl, 'POST', '/auth/refresh', { cookies: { refresh_token: first.refreshToken } });
    const replay = await call(env.publicUrl, 'POST', '/auth/refresh', { cookies: { refresh_token: first.refreshToken } });
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('UNAUTHORIZED');
    expect((await call(env.publicUrl, 'GET', '/user/me', { headers: bearer(rotated.body.accessToken) })).status).toBe(401);
    expect(
      (await call(env.publicUrl, 'POST', '/auth/refresh', { cookies: { refresh_token: rotated.cookies.refresh_token!.value } })).status,
    ).toBe(401);
  });

  it('when the user logs out, then 200, cookies cleared with Max-Age=0, the session is deleted and neither token works', async () => {
    const user = await env.makeUser();
    const { accessToken, refreshToken } = await signIn(env, user);
    const out = await call(env.publicUrl, 'DELETE', '/session/log-out/current', { cookies: { access_token: accessToken } });
    expect(out.status).toBe(200);
    expect(out.cookies.access_token!.raw).toMatch(/Max-Age=0/);
    expect(out.cookies.refresh_token!.raw).toMatch(/Max-Age=0/);
    expect((await env.pool.query('SELECT 1 FROM sessions WHERE user_id = $1', [user.id])).rowCount).toBe(0);
    expect((await call(env.publicUrl, 'GET', '/user/me', { headers: bearer(accessToken) })).status).toBe(401);
    expect((await call(env.publicUrl, 'POST', '/auth/refresh', { cookies: { refresh_token: refreshToken } })).status).toBe(401);
  });
});

describe('MFA: setup, enable, sign-in, verify-2fa, disable', () => {
  it('when MFA is on, then sign-in answers mfaRequired with a challenge token and no cookie, and verify-2fa completes it once', async () => {
    const user = await env.makeUser();
    const { accessToken } = await signIn(env, user);
    const setup = await call(env.publicUrl, 'POST', '/auth/mfa/setup', { headers: bearer(accessToken) });
    expect(setup.status).toBe(200);
    expect(setup.body.otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    const secret = setup.body.secret as string;
    const now = (await totpNow()) * 1000;
    const enable = await call(env.publicUrl, 'POST', '/auth/mfa/enable', {
      headers: bearer(accessToken),
      body: { code: await generate({ secret, epoch: Math.floor(now / 1000) - 30 }) },
    });
    expect(enable.status).toBe(200);
    expect(enable.body.user.mfaEnabled).toBe(true);
    const stored = await env.pool.query<{ mfa_secret: string }>('SELECT mfa_secret FROM user_credentials WHERE user_id = $1', [user.id]);
    expect(stored.rows[0]!.mfa_secret).not.toContain(secret);

    const first = await call(env.publicUrl, 'POST', '/auth/sign-in', {
      body: { email: user.email, password: user.password },
      headers: captcha,
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ mfaRequired: true, mfaToken: expect.any(String) });
    expect(first.headers.getSetCookie()).toEqual([]);

    const wrong = await call(env.publicUrl, 'POST', '/auth/verify-2fa', { body: { code: '000000', mfaToken: first.body.mfaToken } });
    expect(wrong.status).toBe(401);
    const code = await generate({ secret, epoch: Math.floor(now / 1000) });
    const verified = await call(env.publicUrl, 'POST', '/auth/verify-2fa', { body: { code, mfaToken: first.body.mfaToken } });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({
      user: { id: user.id, mfaEnabled: true },
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
    });
    expect(verified.cookies.access_token).toBeDefined();
    expect((await call(env.publicUrl, 'GET', '/user/me', { headers: bearer(verified.body.accessToken) })).body.mfaEnabled).toBe(true);

    const second = await call(env.publicUrl, 'POST', '/auth/sign-in', {
      body: { email: user.email, password: user.password },
      headers: captcha,
    });
    const replayedCode = await call(env.publicUrl, 'POST', '/auth/verify-2fa', { body: { code, mfaToken: second.body.mfaToken } });
    expect(replayedCode.status).toBe(401);
    expect(replayedCode.body.code).toBe('AUTH_INVALID_MFA_CODE');

    const disable = await call(env.publicUrl, 'POST', '/auth/mfa/disable', {
      headers: bearer(verified.body.accessToken),
      body: { code: await generate({ secret, epoch: Math.floor(now / 1000) + 30 }) },
    });
    expect(disable.status).toBe(200);
    expect(disable.body.user.mfaEnabled).toBe(false);
    expect((await signIn(env, user)).reply.body.mfaRequired).toBeUndefined();
  });
});

describe('identity-provider users and POST /auth/setup-username', () => {
  it('when a new identity signs in, then a user without username is created with a session; it cannot bet until it sets a username', async () => {
    const identity = { provider: 'steam', subject: `7656119${Date.now()}`.slice(0, 17) };
    const reply = await call(env.publicUrl, 'POST', '/test/identity-sign-in', { body: identity });
    expect(reply.status).toBe(303);
    expect(reply.headers.get('location')).toBe(`${FRONTEND}/setup-username`);
    const token = reply.cookies.access_token!.value;
    const me = await call(env.publicUrl, 'GET', '/user/me', { headers: bearer(token) });
    expect(me.body.username).toBeNull();
    const bet = {
      id: unique('bet'),
      userId: me.body.id,
      roundId: 'r',
      gameId: 1,
      gameIdentity: { name: 'D', slug: 'd', type: 't', provider: { name: 'p' } },
      currencyId: 'BTC' as const,
      amount: '0.1',
    };
    const refused = await env.ledger.placeBet(bet);
    expect(refused).toMatchObject({ _tag: 'Left', left: { _tag: 'UsernameRequired' } });

    const username = unique('Steam');
    const set = await call(env.publicUrl, 'POST', '/auth/setup-username', { headers: bearer(token), body: { username } });
    expect(set.status).toBe(200);
    expect(set.body.user.username).toBe(username);
    expect(
      (await call(env.publicUrl, 'POST', '/auth/setup-username', { headers: bearer(token), body: { username: unique('Other') } })).status,
    ).toBe(409);
    expect(await env.ledger.placeBet(bet)).toMatchObject({ _tag: 'Left', left: { _tag: 'InsufficientFunds' } });

    const again = await call(env.publicUrl, 'POST', '/test/identity-sign-in', { body: identity });
    expect(again.headers.get('location')).toBe(FRONTEND);
    expect((await call(env.publicUrl, 'GET', '/user/me', { cookies: { access_token: again.cookies.access_token!.value } })).body.id).toBe(
      me.body.id,
    );
  });

  it('when a Google identity with a verified e-mail of an existing user signs in, then it gets no session of that user; an unverified one gets an account of its own', async () => {
    const user = await env.makeUser();
    const refused = await call(env.publicUrl, 'POST', '/test/identity-sign-in', {
      body: { provider: 'google', subject: unique('g'), email: user.email, emailVerified: true },
    });
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe(`${FRONTEND}/login?error=AUTH_IDENTITY_NOT_LINKED`);
    expect(refused.cookies.access_token).toBeUndefined();
    const other = await call(env.publicUrl, 'POST', '/test/identity-sign-in', {
      body: { provider: 'google', subject: unique('g'), email: user.email, emailVerified: false },
    });
    const me = await call(env.publicUrl, 'GET', '/user/me', { cookies: { access_token: other.cookies.access_token!.value } });
    expect(me.body.id).not.toBe(user.id);
    expect(me.body.email).toBeNull();
  });
});

describe('SuperAdmin bootstrap', () => {
  it('when SUPERADMIN_* are set, then one SuperAdmin is created at the first start only, and signs in through the public API', async () => {
    const admin = { email: `${unique('root')}@example.test`, username: unique('Root'), password: 'a long bootstrap secret' };
    expect(await bootstrapSuperAdmin(env.users, admin)).toBe('created');
    expect(await bootstrapSuperAdmin(env.users, { ...admin, email: admin.email.toUpperCase() })).toBe('exists');
    const { accessToken } = await signIn(env, admin);
    expect((await call(env.adminUrl, 'GET', '/user/all-permissions', { headers: bearer(accessToken) })).body).toContain('user.ban');
  });
});
