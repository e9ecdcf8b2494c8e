import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, createAuthEnv, signIn, type AuthEnv } from '../support/auth-env.js';
import { eventually } from '../support/eventually.js';
import { signedInAdmin } from '../support/money-env.js';

let env: AuthEnv;
let keyEditor: Awaited<ReturnType<typeof signedInAdmin>>;
let keyViewer: Awaited<ReturnType<typeof signedInAdmin>>;
let superAdmin: Awaited<ReturnType<typeof signedInAdmin>>;

beforeAll(async () => {
  env = await createAuthEnv('credentials');
  [keyEditor, keyViewer, superAdmin] = await Promise.all([
    signedInAdmin(env, ['api-key.edit']),
    signedInAdmin(env, ['api-key.view']),
    signedInAdmin(env, [], true),
  ]);
});
afterAll(async () => {
  await env?.close();
});

const me = (headers: Record<string, string>) => call(env.publicUrl, 'GET', '/user/me', { headers });
const refresh = (token: string) => call(env.publicUrl, 'POST', '/auth/refresh', { cookies: { refresh_token: token } });
const keyFor = async (userId: number): Promise<string> => {
  const issued = await superAdmin.as('POST', '/api-keys', { body: { userId } });
  expect(issued.status).toBe(201);
  return issued.body.key as string;
};

describe('API keys between admins: least privilege', () => {
  it('when an admin holding only api-key.edit keys a SuperAdmin, then 403 and no key is made', async () => {
    const root = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    const reply = await keyEditor.as('POST', '/api-keys', { body: { userId: root.id } });
    expect(reply.status).toBe(403);
    expect(reply.body.code).toBe('FORBIDDEN');
    const rows = await env.pool.query('SELECT 1 FROM api_keys WHERE user_id = $1', [root.id]);
    expect(rows.rowCount).toBe(0);
    expect((await keyEditor.as('DELETE', `/api-keys/${root.id}`)).status).toBe(403);
    expect((await keyViewer.as('GET', `/api-keys/${root.id}`)).status).toBe(403);
  });

  it('when the target holds a permission the caller lacks, then 403; a player, or an admin with no more rights, may be keyed', async () => {
    const banner = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['user.ban'] });
    expect((await keyEditor.as('POST', '/api-keys', { body: { userId: banner.id } })).status).toBe(403);
    const player = await env.makeUser();
    expect((await keyEditor.as('POST', '/api-keys', { body: { userId: player.id } })).status).toBe(201);
    const peer = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['api-key.edit'] });
    expect((await keyEditor.as('POST', '/api-keys', { body: { userId: peer.id } })).status).toBe(201);
    expect((await superAdmin.as('POST', '/api-keys', { body: { userId: banner.id } })).status).toBe(201);
  });
});

describe('an API key never manages MFA, the password or sessions', () => {
  it('when MFA setup, enable, disable, a password change or a sign-out is asked with an API key, then 403 AUTH_SESSION_REQUIRED', async () => {
    const player = await env.makeUser();
    const key = { 'x-api-key': await keyFor(player.id) };
    expect((await me(key)).status).toBe(200);
    for (const [path, body] of [
      ['/auth/mfa/setup', undefined],
      ['/auth/mfa/enable', { code: '123456' }],
      ['/auth/mfa/disable', { code: '123456' }],
      ['/auth/password', { currentPassword: player.password, newPassword: 'a brand new password 1' }],
      ['/auth/sign-out-everywhere', undefined],
    ] as const) {
      const reply = await call(env.publicUrl, 'POST', path, { headers: key, body });
      expect([path, reply.status, reply.body.code]).toEqual([path, 403, 'AUTH_SESSION_REQUIRED']);
    }
    const credentials = await env.pool.query('SELECT mfa_pending_secret FROM user_credentials WHERE user_id = $1', [player.id]);
    expect(credentials.rows[0]?.mfa_pending_secret ?? null).toBeNull();
    expect((await signIn(env, player)).reply.status).toBe(200);
  });
});

describe('ending access ends sessions', () => {
  it('when a user is banned and unbanned, then the old access token, refresh token and API key stay refused', async () => {
    const player = await env.makeUser();
    const { accessToken, refreshToken } = await signIn(env, player);
    const key = await keyFor(player.id);
    expect((await me(bearer(accessToken))).status).toBe(200);
    expect((await superAdmin.as('PATCH', `/user/${player.id}/ban`, { body: { banReason: 'fraud' } })).status).toBe(200);
    expect((await superAdmin.as('PATCH', `/user/${player.id}/unban`)).status).toBe(200);
    expect((await me(bearer(accessToken))).status).toBe(401);
    expect((await refresh(refreshToken)).status).toBe(401);
    expect((await me({ 'x-api-key': key })).status).toBe(401);
    // The user signs in again as usual after the unban.
    expect((await me(bearer((await signIn(env, player)).accessToken))).status).toBe(200);
  });

  it('when a user changes their password, then every earlier session and key ends and the new session works', async () => {
    const player = await env.makeUser();
    const other = await signIn(env, player);
    const current = await signIn(env, player);
    const key = await keyFor(player.id);
    const wrong = await call(env.publicUrl, 'POST', '/auth/password', {
      headers: bearer(current.accessToken),
      body: { currentPassword: 'not my password', newPassword: 'a brand new password 1' },
    });
    expect(wrong.status).toBe(401);
    expect((await me(bearer(other.accessToken))).status).toBe(200);
    const weak = await call(env.publicUrl, 'POST', '/auth/password', {
      headers: bearer(current.accessToken),
      body: { currentPassword: player.password, newPassword: 'short' },
    });
    expect(weak.status).toBe(400);
    expect(weak.body.details?.[0]?.field ?? weak.body.details?.[0]?.path).toBeDefined();

    const changed = await call(env.publicUrl, 'POST', '/auth/password', {
      headers: bearer(current.accessToken),
      body: { currentPassword: player.password, newPassword: 'a brand new password 1' },
    });
    expect(changed.status).toBe(200);
    expect(changed.cookies.access_token).toBeDefined();
    for (const token of [other.accessToken, current.accessToken]) expect((await me(bearer(token))).status).toBe(401);
    expect((await refresh(other.refreshToken)).status).toBe(401);
    expect((await me({ 'x-api-key': key })).status).toBe(401);
    expect((await me(bearer(changed.body.accessToken))).status).toBe(200);
    await expect(signIn(env, player)).rejects.toThrow(/401/);
    expect((await signIn(env, { email: player.email, password: 'a brand new password 1' })).reply.status).toBe(200);
  });

  it('when a user signs out everywhere, then each of their sessions and keys ends', async () => {
    const player = await env.makeUser();
    const [a, b] = [await signIn(env, player), await signIn(env, player)];
    const key = await keyFor(player.id);
    expect((await call(env.publicUrl, 'POST', '/auth/sign-out-everywhere', { headers: bearer(a.accessToken) })).status).toBe(204);
    for (const token of [a.accessToken, b.accessToken]) expect((await me(bearer(token))).status).toBe(401);
    expect((await refresh(b.refreshToken)).status).toBe(401);
    expect((await me({ 'x-api-key': key })).status).toBe(401);
  });

  it('when an admin signs a user out everywhere, then the user is signed out, the action is audited, and a SuperAdmin is out of reach', async () => {
    const banner = await signedInAdmin(env, ['user.ban']);
    const player = await env.makeUser();
    const session = await signIn(env, player);
    const key = await keyFor(player.id);
    const reply = await banner.as('POST', `/user/${player.id}/sign-out`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ sessions: 1, apiKeyIds: [expect.any(String)] });
    expect((await me(bearer(session.accessToken))).status).toBe(401);
    expect((await me({ 'x-api-key': key })).status).toBe(401);
    const root = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    const rootSession = await signIn(env, root);
    expect((await banner.as('POST', `/user/${root.id}/sign-out`)).status).toBe(403);
    expect((await me(bearer(rootSession.accessToken))).status).toBe(200);
    const noRight = await signedInAdmin(env, ['user.view']);
    expect((await noRight.as('POST', `/user/${player.id}/sign-out`)).status).toBe(403);

    const projector = env.startProjector();
    try {
      const audited = await eventually(async () => {
        const log = await superAdmin.as('GET', `/admin-audit?action=user.sign-out&userId=${player.id}`);
        if (log.status !== 200 || log.body.data.length !== 1) throw new Error(`not yet: ${log.status} ${JSON.stringify(log.body)}`);
        return log.body.data[0];
      });
      expect(audited).toMatchObject({ action: 'user.sign-out', admin: { id: banner.id }, targetUser: { id: player.id } });
    } finally {
      await projector.stop();
    }
  });
});
