import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokens } from '../../src/auth/sessions.js';
import { bearer, call, createAuthEnv, FRONTEND, GOOD_CAPTCHA, signIn, type AuthEnv } from '../support/auth-env.js';

let env: AuthEnv;
beforeAll(async () => {
  env = await createAuthEnv('auth_sec');
});
afterAll(async () => {
  await env?.close();
});

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const me = (headers: Record<string, string> = {}, cookies: Record<string, string> = {}) =>
  call(env.publicUrl, 'GET', '/user/me', { headers, cookies });
const expect401 = (reply: { status: number; body: { code: string } }, code = 'UNAUTHORIZED') => {
  expect(reply.status).toBe(401);
  expect(reply.body.code).toBe(code);
};

describe('the request authenticator', () => {
  it('when a token has alg none, then 401', async () => {
    const user = await env.makeUser();
    const { accessToken } = await signIn(env, user);
    const payload = accessToken.split('.')[1];
    expect401(await me(bearer(`${b64({ alg: 'none', typ: 'at+jwt' })}.${payload}.`)));
  });

  it('when a token is signed with another key (or HS256 with the public key as secret), then 401', async () => {
    const user = await env.makeUser();
    const { accessToken } = await signIn(env, user);
    const sid = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()).sid as string;
    const other = createTokens({ keys: await generateKeyPair('EdDSA', { crv: 'Ed25519' }), accessTtlSeconds: 900, mfaTtlSeconds: 300 });
    expect401(await me(bearer(await other.signAccess({ userId: user.id, sessionId: sid }))));
    const hs = await new SignJWT({ sid })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setSubject(String(user.id))
      .setIssuer('casino-ledger')
      .setExpirationTime('5m')
      .setJti('x')
      .sign(new TextEncoder().encode('a-secret-of-sufficient-length-123'));
    expect401(await me(bearer(hs)));
  });

  it('when the token expired, then 401', async () => {
    const user = await env.makeUser();
    const session = await env.kit.sessions.create(user.id, { ip: null, userAgent: null });
    // JWT times are whole seconds: a 3 s token lives between 2 and 3 s, so the first call is safely inside it.
    const shortLived = createTokens({ keys: env.kit.settings.keys, accessTtlSeconds: 3, mfaTtlSeconds: 3 });
    const token = await shortLived.signAccess({ userId: user.id, sessionId: session.id });
    expect((await me(bearer(token))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 3100));
    expect401(await me(bearer(token)));
  });

  it('when the JWT is valid but its session was logged out, then the next request is refused 401', async () => {
    const user = await env.makeUser();
    const { accessToken } = await signIn(env, user);
    expect((await me(bearer(accessToken))).status).toBe(200);
    await call(env.publicUrl, 'DELETE', '/session/log-out/current', { headers: bearer(accessToken) });
    expect401(await me(bearer(accessToken)));
  });

  it('when the user is banned while signed in, then the session ends at once and a sign-in is refused 403 USER_BANNED; unbanned, only a new sign-in works', async () => {
    const admin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    const user = await env.makeUser();
    const { accessToken } = await signIn(env, user);
    const adminToken = (await signIn(env, admin)).accessToken;
    expect(
      (await call(env.adminUrl, 'PATCH', `/user/${user.id}/ban`, { headers: bearer(adminToken), body: { banReason: 'abuse' } })).status,
    ).toBe(200);
    expect401(await me(bearer(accessToken)));
    const refused = await call(env.publicUrl, 'POST', '/auth/sign-in', {
      body: { email: user.email, password: user.password },
      headers: { 'x-captcha-token': GOOD_CAPTCHA },
    });
    expect([refused.status, refused.body.code]).toEqual([403, 'USER_BANNED']);
    expect((await call(env.adminUrl, 'PATCH', `/user/${user.id}/unban`, { headers: bearer(adminToken) })).status).toBe(200);
    expect401(await me(bearer(accessToken)));
    expect((await me(bearer((await signIn(env, user)).accessToken))).status).toBe(200);
    const audit = await env.pool.query<{ data: { adminUserId: number } }>(
      `SELECT data FROM events WHERE stream_id = $1 AND type = 'UserBanned'`,
      [`user-${user.id}`],
    );
    expect(audit.rows[0]!.data.adminUserId).toBe(admin.id);
  });

  it('when the access cookie is tampered with, then 401', async () => {
    const user = await env.makeUser();
    const { accessToken } = await signIn(env, user);
    const [h, p, s] = accessToken.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    expect401(await me({}, { access_token: `${h}.${b64({ ...claims, sub: '1' })}.${s}` }));
    // Flip a character in the middle: the last ones of a base64url signature carry padding bits a decoder ignores.
    const flipped = `${s!.slice(0, 10)}${s![10] === 'A' ? 'B' : 'A'}${s!.slice(11)}`;
    expect401(await me({}, { access_token: `${h}.${p}.${flipped}` }));
    expect401(await me({}, { access_token: 'garbage' }));
  });

  it('when an MFA challenge token is reused or used as an access token, then it is refused; an access token is no challenge token either', async () => {
    const user = await env.makeUser();
    const { accessToken } = await signIn(env, user);
    const challenge = await env.kit.tokens.signMfaChallenge(user.id);
    expect401(await me(bearer(challenge)), 'AUTH_MFA_REQUIRED');
    expect401(await me({}, { access_token: challenge }), 'AUTH_MFA_REQUIRED');
    const asChallenge = await call(env.publicUrl, 'POST', '/auth/verify-2fa', { body: { code: '123456', mfaToken: accessToken } });
    expect401(asChallenge);
    await env.pool.query("INSERT INTO mfa_challenges_used (jti, expires_at) VALUES ($1, now() + interval '5 minutes')", [
      JSON.parse(Buffer.from(challenge.split('.')[1]!, 'base64url').toString()).jti,
    ]);
    expect401(await call(env.publicUrl, 'POST', '/auth/verify-2fa', { body: { code: '123456', mfaToken: challenge } }));
  });

  it('when an unsafe request carried by cookies comes cross-site, then 403; from the front end, or by bearer, it passes', async () => {
    const user = await env.makeUser();
    const { accessToken, refreshToken } = await signIn(env, user);
    const cookies = { access_token: accessToken };
    const crossSite: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
    ];
    for (const headers of crossSite) {
      const reply = await call(env.publicUrl, 'POST', '/auth/setup-username', { cookies, headers, body: { username: 'Whatever1' } });
      expect(reply.status).toBe(403);
      expect(reply.body.code).toBe('FORBIDDEN');
      expect((await call(env.publicUrl, 'POST', '/auth/refresh', { cookies: { refresh_token: refreshToken }, headers })).status).toBe(403);
    }
    expect(
      (await call(env.publicUrl, 'DELETE', '/session/log-out/current', { cookies, headers: { origin: 'https://evil.example' } })).status,
    ).toBe(403);
    expect((await me({ origin: 'https://evil.example' }, cookies)).status).toBe(200); // safe method
    expect(
      (
        await call(env.publicUrl, 'POST', '/auth/refresh', {
          cookies: { refresh_token: refreshToken },
          headers: { origin: FRONTEND, 'sec-fetch-site': 'same-site' },
        })
      ).status,
    ).toBe(200);
  });

  it('when the back office gets the legacy jwt_access_token cookie, then it authenticates; the public API ignores it', async () => {
    const admin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    const { accessToken } = await signIn(env, admin);
    expect((await call(env.adminUrl, 'GET', '/user/all-permissions', { cookies: { jwt_access_token: accessToken } })).status).toBe(200);
    expect401(await me({}, { jwt_access_token: accessToken }));
  });

  it('when a hashed API key is presented as x-api-key on the public API, then its user is authenticated; a wrong key is 401', async () => {
    const user = await env.makeUser();
    const { createHash, randomUUID } = await import('node:crypto');
    const key = `ck_${randomUUID()}`;
    await env.pool.query('INSERT INTO api_keys (id, user_id, key_hash) VALUES ($1, $2, $3)', [
      randomUUID(),
      user.id,
      createHash('sha256').update(key).digest('base64url'),
    ]);
    expect((await me({ 'x-api-key': key })).body.id).toBe(user.id);
    expect401(await me({ 'x-api-key': `${key}x` }));
    expect401(await call(env.adminUrl, 'GET', '/user/all-permissions', { headers: { 'x-api-key': key } }));
  });

  it('when sign-in is called with a captcha, then the refresh cookie is not readable by scripts and the access JWT names the session, not roles', async () => {
    const user = await env.makeUser();
    const reply = await call(env.publicUrl, 'POST', '/auth/sign-in', {
      body: { email: user.email, password: user.password },
      headers: { 'x-captcha-token': GOOD_CAPTCHA },
    });
    const [header, payload] = reply.cookies
      .access_token!.value.split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: String(user.id), sid: expect.any(String) });
    expect(payload.roles).toBeUndefined();
  });
});
