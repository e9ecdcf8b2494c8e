import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ClientEventHandler } from '../../src/realtime/protocol.js';
import { MAX_TOKEN_LENGTH } from '../../src/realtime/socket-auth.js';
import { bearer, call, signIn } from '../support/auth-env.js';
import { createRealtimeEnv, type RealtimeEnv, type TestClient } from '../support/realtime-env.js';

/** Test-only handler: who the gateway thinks this socket is. */
const whoAmI: ClientEventHandler = {
  event: 'TestWhoAmI',
  access: 'required',
  schema: z.unknown(),
  handle: async (_data, ctx) => ({ userId: ctx.user?.userId, sessionId: ctx.user?.sessionId }),
};

describe('realtime gateway: authentication', () => {
  let env: RealtimeEnv;

  beforeAll(async () => {
    env = await createRealtimeEnv('gw_auth', { publisher: false, handlers: () => [whoAmI], deauthSweepMs: 300 });
  });
  afterAll(async () => {
    await env?.close();
  });

  const sidOf = (token: string): string => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
  const authSuccess = (c: TestClient) => c.waitFor<{ user: { id: number; username: string | null; roles: string[] } }>('AuthSuccess');
  const authError = (c: TestClient) => c.waitFor<{ error: string; message: string }>('AuthError');
  /** A per-user event on the bus: reaches the user's sockets only. */
  const pushTo = async (userId: number, marker: string) => env.bus.publish('ProfileUpdated', { userId, payload: { marker } });

  describe('at connect, the token is taken from auth.socket_token, then cookie socket_token, then cookie access_token', () => {
    it('when the handshake auth carries socket_token, then AuthSuccess names the user with its roles', async () => {
      const { user, accessToken } = await env.signedIn({ roles: ['User'] });
      const c = await env.connect({ token: accessToken });
      expect(await authSuccess(c)).toEqual({ user: { id: user.id, username: user.username, roles: ['User'] } });
      expect(await c.ack('TestWhoAmI')).toEqual({ status: 200, data: { userId: user.id, sessionId: sidOf(accessToken) } });
      c.close();
    });

    it('when all three carry different users, then auth.socket_token wins; without it cookie socket_token beats cookie access_token', async () => {
      const a = await env.signedIn();
      const b = await env.signedIn();
      const c3 = await env.signedIn();
      const all = await env.connect({ token: a.accessToken, cookies: { socket_token: b.accessToken, access_token: c3.accessToken } });
      expect((await authSuccess(all)).user.id).toBe(a.user.id);
      const cookies = await env.connect({ cookies: { socket_token: b.accessToken, access_token: c3.accessToken } });
      expect((await authSuccess(cookies)).user.id).toBe(b.user.id);
      const accessCookie = await env.connect({ cookies: { access_token: c3.accessToken } });
      expect((await authSuccess(accessCookie)).user.id).toBe(c3.user.id);
      [all, cookies, accessCookie].forEach((c) => c.close());
    });

    it('when the only token is an Authorization header, then it is ignored: AuthError TOKEN_MISSING and the socket is anonymous', async () => {
      const { accessToken } = await env.signedIn();
      const c = await env.connect({ headers: bearer(accessToken) });
      expect(await authError(c)).toEqual({ error: 'TOKEN_MISSING', message: 'No access token' });
      expect(await c.ack('TestWhoAmI')).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      c.close();
    });

    it('when the upgrade has no Origin (not a browser), then cookies are ignored but auth.socket_token still counts', async () => {
      const { user, accessToken } = await env.signedIn();
      const cookieOnly = await env.connect({ origin: null, cookies: { access_token: accessToken } });
      expect((await authError(cookieOnly)).error).toBe('TOKEN_MISSING');
      const explicit = await env.connect({ origin: null, token: accessToken });
      expect((await authSuccess(explicit)).user.id).toBe(user.id);
      cookieOnly.close();
      explicit.close();
    });
  });

  describe('AuthError reasons (the socket stays open, anonymous)', () => {
    it('when the token is garbage, too long, expired, an MFA challenge, of a logged-out session or of a banned user, then AuthError says which', async () => {
      const { user, accessToken } = await env.signedIn();
      const keys = env.kit.settings.keys;
      const past = Math.floor(Date.now() / 1000) - 120;
      const expired = await new SignJWT({ sid: sidOf(accessToken) })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' })
        .setSubject(String(user.id))
        .setIssuer('casino-ledger')
        .setIssuedAt(past - 60)
        .setExpirationTime(past)
        .setJti(randomUUID())
        .sign(keys.privateKey);
      const loggedOut = await env.signedIn();
      expect((await call(env.publicUrl, 'DELETE', '/session/log-out/current', { headers: bearer(loggedOut.accessToken) })).status).toBe(
        200,
      );
      const banned = await env.signedIn();
      const admin = await env.makeUser({ roles: ['Admin'] });
      await env.users.execute(banned.user.id, { type: 'BanUser', data: { reason: 'test' } }, admin.id);
      const cases: [string, string][] = [
        ['not-a-jwt', 'TOKEN_INVALID'],
        ['x'.repeat(MAX_TOKEN_LENGTH + 1), 'TOKEN_TOO_LONG'],
        [expired, 'TOKEN_EXPIRED'],
        [await env.kit.tokens.signMfaChallenge(user.id), 'MFA_REQUIRED'],
        [loggedOut.accessToken, 'SESSION_ENDED'],
        [banned.accessToken, 'BANNED'],
      ];
      for (const [token, code] of cases) {
        const c = await env.connect({ token });
        expect((await authError(c)).error, code).toBe(code);
        expect(c.socket.connected).toBe(true);
        expect(c.all('AuthSuccess')).toEqual([]);
        c.close();
      }
    });

    it('when anonymous, then the socket stays open, gets public events but no per-user event, and an authenticated event gives Unauthorized plus a 401 acknowledgement', async () => {
      const { user } = await env.signedIn();
      const c = await env.connect();
      expect((await authError(c)).error).toBe('TOKEN_MISSING');
      await pushTo(user.id, 'private');
      await env.bus.publish('UsersOnlineUpdated', { payload: { count: 4242 } });
      expect(await c.waitFor('UsersOnlineUpdated', (p: { count: number }) => p.count === 4242)).toEqual({ count: 4242 });
      const ack = await c.ack('TestWhoAmI', {});
      expect(ack).toEqual({ status: 401, code: 'UNAUTHORIZED', message: 'Authentication required' });
      expect(await c.waitFor('Unauthorized')).toEqual({ message: 'Authentication required' });
      expect(c.all('ProfileUpdated')).toEqual([]);
      expect(c.socket.connected).toBe(true);
      c.close();
    });
  });

  describe('the Authorization event', () => {
    it('when an anonymous socket sends a valid token, then the acknowledgement carries the user, AuthSuccess follows and per-user events arrive', async () => {
      const { user, accessToken } = await env.signedIn();
      const c = await env.connect();
      await authError(c);
      expect(await c.ack('Authorization', { accessToken })).toEqual({
        status: 200,
        data: { user: { id: user.id, username: user.username, roles: ['User'] } },
      });
      expect((await authSuccess(c)).user.id).toBe(user.id);
      await pushTo(user.id, 'after-auth');
      expect(await c.waitFor('ProfileUpdated')).toEqual({ marker: 'after-auth' });
      c.close();
    });

    it('when the token is refused, then the acknowledgement is 401 with the reason, AuthError follows and the socket is anonymous', async () => {
      const { accessToken } = await env.signedIn();
      const c = await env.connect({ token: accessToken });
      await authSuccess(c);
      expect(await c.ack('Authorization', { accessToken: 'garbage' })).toEqual({
        status: 401,
        code: 'TOKEN_INVALID',
        message: 'Invalid access token',
      });
      expect((await authError(c)).error).toBe('TOKEN_INVALID');
      expect(await c.ack('TestWhoAmI')).toMatchObject({ status: 401 });
      expect(await c.ack('Authorization', {})).toEqual({ status: 401, code: 'TOKEN_MISSING', message: 'No access token' });
      c.close();
    });

    it("when an authenticated socket switches user, then it leaves the old user room: only the new user's events arrive", async () => {
      const a = await env.signedIn();
      const b = await env.signedIn();
      const c = await env.connect({ token: a.accessToken });
      await authSuccess(c);
      expect((await c.ack('Authorization', { accessToken: b.accessToken })).status).toBe(200);
      await pushTo(a.user.id, 'for-a');
      await pushTo(b.user.id, 'for-b');
      expect(await c.waitFor('ProfileUpdated')).toEqual({ marker: 'for-b' });
      // Both were published on one channel in order: once b's arrived, a's would have arrived before it.
      expect(c.all('ProfileUpdated').map((r) => r.payload)).toEqual([{ marker: 'for-b' }]);
      c.close();
    });
  });

  describe('de-authentication of live sockets', () => {
    it("when the user logs out, then that session's sockets get AuthError SESSION_ENDED and become anonymous; another session of the user stays", async () => {
      const user = await env.makeUser();
      const first = await signIn(env.auth, user);
      const second = await signIn(env.auth, user);
      const c1 = await env.connect({ token: first.accessToken });
      const c2 = await env.connect({ token: second.accessToken });
      await authSuccess(c1);
      await authSuccess(c2);
      expect((await call(env.publicUrl, 'DELETE', '/session/log-out/current', { headers: bearer(first.accessToken) })).status).toBe(200);
      expect(await authError(c1)).toEqual({ error: 'SESSION_ENDED', message: 'Session ended' });
      expect(c1.socket.connected).toBe(true);
      expect(await c1.ack('TestWhoAmI')).toMatchObject({ status: 401 });
      await pushTo(user.id, 'after-logout');
      expect(await c2.waitFor('ProfileUpdated')).toEqual({ marker: 'after-logout' });
      expect(c2.all('AuthError')).toEqual([]);
      expect(c1.all('ProfileUpdated')).toEqual([]);
      c1.close();
      c2.close();
    });

    it('when an admin bans the user through the back office, then every socket of the user gets AuthError BANNED', async () => {
      const admin = await env.signedIn({ roles: ['Admin'], permissions: ['user.ban'] });
      const target = await env.signedIn();
      const c = await env.connect({ token: target.accessToken });
      await authSuccess(c);
      const reply = await call(env.adminUrl, 'PATCH', `/user/${target.user.id}/ban`, {
        headers: bearer(admin.accessToken),
        body: { banReason: 'abuse' },
      });
      expect(reply.status).toBe(200);
      expect(await authError(c)).toEqual({ error: 'BANNED', message: 'The account is banned' });
      expect(await c.ack('TestWhoAmI')).toMatchObject({ status: 401 });
      c.close();
    });

    it('when the sessions are revoked, then the sockets get AuthError SESSION_ENDED', async () => {
      const { user, accessToken } = await env.signedIn();
      const c = await env.connect({ token: accessToken });
      await authSuccess(c);
      await env.kit.sessions.revokeAllOf(user.id, 'password changed');
      expect((await authError(c)).error).toBe('SESSION_ENDED');
      c.close();
    });

    it('when a session simply expires (no notification), then the periodic sweep de-authenticates its sockets', async () => {
      const { accessToken } = await env.signedIn();
      const c = await env.connect({ token: accessToken });
      await authSuccess(c);
      await env.pool.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [sidOf(accessToken)]);
      expect((await authError(c)).error).toBe('SESSION_ENDED');
      c.close();
    });
  });
});
