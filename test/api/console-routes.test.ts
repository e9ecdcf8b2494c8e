import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '../../src/http/console.routes.js';
import { errorHandler, notFound } from '../../src/http/http-errors.js';
import { createLogger } from '../../src/infra/logger.js';
import { BYPASS, call, createAuthEnv, type AuthEnv } from '../support/auth-env.js';

let env: AuthEnv;
const ICON = Buffer.from([0, 0, 1, 0, 1, 0, 16, 16]);
let built = '';
let missing = '';
const servers: { close: () => void }[] = [];

/** The console routes alone over a given build folder (a fake build: the routes serve whatever `dist` holds). */
const serve = (dist: string): Promise<string> =>
  new Promise((resolve) => {
    const app = express()
      .use(express.json())
      .use(consoleRoutes(env.kit, dist))
      .use(notFound)
      .use(errorHandler(createLogger({ level: 'silent' })));
    const server = app.listen(0, () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`));
    servers.push(server);
  });

beforeAll(async () => {
  env = await createAuthEnv('console_routes', {
    captcha: { verifyUrl: 'http://127.0.0.1:9/unused', secret: undefined, localBypassToken: BYPASS, appEnv: 'local' },
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'console-dist-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(path.join(dir, 'assets', 'app.js'), 'console.log("plain")');
  writeFileSync(path.join(dir, 'assets', 'app.js.gz'), gzipSync('console.log("gzipped twin")'));
  writeFileSync(path.join(dir, 'favicon.ico'), ICON);
  built = await serve(dir);
  missing = await serve(path.join(dir, 'nothing-here'));
}, 60_000);
afterAll(async () => {
  for (const s of servers) s.close();
  await env.close();
});

describe('the admin console routes on the back-office port', () => {
  it('when /admin is asked for, then the index comes without caching, /admin redirects to /admin/, and assets are immutable', async () => {
    const index = await call(built, 'GET', '/admin/');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/text\/html/);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect((await call(built, 'GET', '/admin')).headers.get('location')).toBe('/admin/');
    const plain = await fetch(`${built}/admin/assets/app.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(await plain.text()).toBe('console.log("plain")');
    expect(plain.headers.get('cache-control')).toMatch(/immutable/);
  });

  it('when a browser asks the origin for /favicon.ico, then the icon of the build comes, not a 404', async () => {
    const res = await fetch(`${built}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(ICON);
    expect(readFileSync(new URL('../../console/public/favicon.ico', import.meta.url)).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
  });

  it("when the browser accepts gzip, then the build's .gz twin is sent with its JavaScript type", async () => {
    const res = await fetch(`${built}/admin/assets/app.js`, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    const body = Buffer.from(await res.arrayBuffer());
    // fetch may already have decoded it; either way the twin's content arrived.
    expect((body[0] === 0x1f ? gunzipSync(body) : body).toString()).toBe('console.log("gzipped twin")');
  });

  it('when the console is not built, then /admin/ answers 503 saying how to build it', async () => {
    const reply = await call(missing, 'GET', '/admin/');
    expect(reply.status).toBe(503);
    expect(reply.body).toContain('npm run build:console');
  });

  it('when the console signs in on its own origin, then the session and its roles come from /admin/session; sign-up is not served there', async () => {
    const admin = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['withdrawals.view'] });
    const signed = await call(built, 'POST', '/admin/auth/sign-in', {
      body: { email: admin.email, password: admin.password },
      headers: { 'x-captcha-token': BYPASS },
    });
    expect(signed.status).toBe(200);
    const cookies = Object.fromEntries(Object.entries(signed.cookies).map(([k, c]) => [k, c.value]));
    const session = await call(built, 'GET', '/admin/session', { cookies });
    expect(session.body).toEqual({
      id: admin.id,
      username: admin.username,
      email: admin.email,
      roles: ['User', 'Admin'],
      permissions: ['withdrawals.view'],
    });
    expect((await call(built, 'GET', '/admin/console-config')).body).toEqual({ captcha: { mode: 'bypass', token: BYPASS } });
    expect((await call(built, 'POST', '/admin/auth/sign-up', { body: {} })).status).toBe(404);
    const out = await call(built, 'DELETE', '/admin/session/log-out/current', { cookies });
    expect(out.status).toBe(200);
    expect((await call(built, 'GET', '/admin/session', { cookies })).status).toBe(401);
  });

  it('when a User without a back-office role or nobody asks /admin/session, then 403 and 401', async () => {
    const user = await env.makeUser();
    const signed = await call(built, 'POST', '/admin/auth/sign-in', {
      body: { email: user.email, password: user.password },
      headers: { 'x-captcha-token': BYPASS },
    });
    const cookies = Object.fromEntries(Object.entries(signed.cookies).map(([k, c]) => [k, c.value]));
    expect((await call(built, 'GET', '/admin/session', { cookies })).body.code).toBe('FORBIDDEN');
    expect((await call(built, 'GET', '/admin/session')).status).toBe(401);
  });

  it("when another site posts a refresh with the admin cookies, then the Origin check refuses it; the console's own origin passes", async () => {
    const admin = await env.makeUser({ roles: ['User', 'Admin'] });
    const signed = await call(built, 'POST', '/admin/auth/sign-in', {
      body: { email: admin.email, password: admin.password },
      headers: { 'x-captcha-token': BYPASS },
    });
    const cookies = Object.fromEntries(Object.entries(signed.cookies).map(([k, c]) => [k, c.value]));
    const refused = await call(built, 'POST', '/admin/auth/refresh', { cookies, headers: { origin: 'https://evil.example' } });
    expect(refused.status).toBe(403);
    const same = await call(built, 'POST', '/admin/auth/refresh', { cookies, headers: { origin: built } });
    expect(same.status).toBe(200);
  });
});
