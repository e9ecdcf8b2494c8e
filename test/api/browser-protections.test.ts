import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminApp } from '../../src/http/admin-app.js';
import { createPublicApp } from '../../src/http/public-app.js';
import { createLogger } from '../../src/infra/logger.js';
import { bearer, call, createAuthEnv, FRONTEND, signIn, type AuthEnv } from '../support/auth-env.js';

let env: AuthEnv;
const servers: Server[] = [];
const lines: Record<string, unknown>[] = [];
let loggedPublic = '';
let loggedAdmin = '';
let productionAdmin = '';

const serve = (app: import('express').Express): Promise<string> =>
  new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`));
    servers.push(s);
  });

beforeAll(async () => {
  env = await createAuthEnv('browser_protections');
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  loggedPublic = await serve(createPublicApp({ logger, pool: env.pool, store: env.store, auth: { kit: env.kit, ledger: env.ledger } }));
  loggedAdmin = await serve(createAdminApp({ logger, pool: env.pool, store: env.store, ledger: env.ledger, auth: env.kit }));
  productionAdmin = await serve(
    createAdminApp({
      logger: createLogger({ level: 'silent' }),
      pool: env.pool,
      store: env.store,
      ledger: env.ledger,
      auth: env.kit,
      hsts: true,
    }),
  );
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await env?.close();
});

describe('security headers', () => {
  it.each([
    ['public API', () => env.publicUrl, '/health'],
    ['back office', () => env.adminUrl, '/health'],
    ['back office', () => env.adminUrl, '/user/all'],
  ])('when the %s answers %s, then nosniff, no referrer, no framing and a CSP that allows nothing', async (_name, base, path) => {
    const reply = await call(base(), 'GET', path);
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(reply.headers.get('referrer-policy')).toBe('no-referrer');
    expect(reply.headers.get('x-frame-options')).toBe('DENY');
    const csp = reply.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(reply.headers.get('strict-transport-security')).toBeNull();
  });

  it('when the console or the API documentation is served, then scripts come only from the service itself and framing is refused', async () => {
    for (const path of ['/admin/', '/docs']) {
      const reply = await call(env.adminUrl, 'GET', path);
      const csp = reply.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*(unsafe-inline|unsafe-eval)/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).toContain("base-uri 'none'");
      expect(reply.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('when the service runs outside local development, then every answer carries HSTS', async () => {
    const reply = await call(productionAdmin, 'GET', '/health');
    expect(reply.headers.get('strict-transport-security')).toMatch(/max-age=31536000/);
  });
});

describe('access log', () => {
  it('when a URL carries a query, then the access line keeps the parameter names and none of their values', async () => {
    await call(loggedPublic, 'GET', '/auth/google/callback?code=secret-oauth-code&state=secret-state');
    await call(loggedAdmin, 'GET', '/user/all?search=victim%40example.test');
    const urls = lines.filter((l) => l.msg === 'request completed').map((l) => String(l.url));
    expect(urls).toContain('/auth/google/callback?code=*&state=*');
    expect(urls).toContain('/user/all?search=*');
    const all = JSON.stringify(lines);
    for (const secret of ['secret-oauth-code', 'secret-state', 'victim']) expect(all).not.toContain(secret);
  });
});

describe('cookies on the back office', () => {
  it("when a cookie-carried change comes from the player site's origin, then the back office refuses it; from its own, it passes", async () => {
    const admin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    const { accessToken } = await signIn(env, admin);
    const target = await env.makeUser();
    const ban = (origin: string) =>
      call(env.adminUrl, 'PATCH', `/user/${target.id}/ban`, {
        cookies: { access_token: accessToken },
        headers: { origin },
        body: { banReason: 'cross-site' },
      });
    const refused = await ban(FRONTEND);
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    expect((await call(env.adminUrl, 'GET', `/user/${target.id}`, { headers: bearer(accessToken) })).body.isBanned).toBe(false);
    // The public API still takes the player site's cookie-carried requests.
    expect(
      (
        await call(env.publicUrl, 'POST', '/auth/sign-out-everywhere', {
          cookies: { access_token: accessToken },
          headers: { origin: FRONTEND },
        })
      ).status,
    ).toBe(204);
    const again = (await signIn(env, admin)).accessToken;
    const own = await call(env.adminUrl, 'PATCH', `/user/${target.id}/ban`, {
      cookies: { access_token: again },
      headers: { origin: env.adminUrl },
      body: { banReason: 'same origin' },
    });
    expect(own.status).toBe(200);
  });
});
