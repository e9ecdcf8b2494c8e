import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import type { AuthKit } from '../auth/auth-kit.js';
import { isStaff } from '../domain/user/permissions.js';
import { authRoutes } from './auth.routes.js';
import { authenticateRequest } from './auth.adapter.js';
import { authError } from './http-errors.js';

/** Where `npm run build:console` writes the console (`console/dist`), from src/http (tsx) or dist/src/http (compiled). */
export const CONSOLE_DIST =
  [path.resolve(import.meta.dirname, '../../console/dist'), path.resolve(import.meta.dirname, '../../../console/dist')].find((dir) =>
    existsSync(path.join(dir, 'index.html')),
  ) ?? path.resolve(import.meta.dirname, '../../console/dist');

/** Paths of the public auth routes the console may call on its own origin; sign-up stays on the public API. */
const CONSOLE_AUTH = new Set(['POST /auth/sign-in', 'POST /auth/verify-2fa', 'POST /auth/refresh', 'DELETE /session/log-out/current']);

/** The console at `/admin` with, on its own origin, the public API's auth handlers: no CORS, and the cookies' Origin check passes. */
export const consoleRoutes = (kit: AuthKit, dist = CONSOLE_DIST): Router => {
  const router = Router();
  const onlyConsoleAuth: RequestHandler = (req, _res, next) => (CONSOLE_AUTH.has(`${req.method} ${req.path}`) ? next() : next('router'));
  router.use('/admin', Router().use(onlyConsoleAuth, authRoutes(kit)));

  router.get('/admin/session', async (req, res, next) => {
    try {
      const auth = await authenticateRequest(kit.authenticator, req, 'admin');
      if (!isStaff(auth.roles)) throw authError('forbidden', 'Back-office access needs the Admin or SuperAdmin role');
      res
        .set('cache-control', 'no-store')
        .json({ id: auth.userId, username: auth.username, email: auth.user.email, roles: auth.roles, permissions: auth.permissions });
    } catch (error) {
      next(error);
    }
  });
  // The captcha rule of the environment: locally the bypass token (accepted only with APP_ENV=local), else a token to enter.
  router.get('/admin/console-config', (_req, res) => {
    const local = kit.settings.captcha.appEnv === 'local';
    res
      .set('cache-control', 'no-store')
      .json({ captcha: local ? { mode: 'bypass', token: kit.settings.captcha.localBypassToken } : { mode: 'token' } });
  });

  // Browsers ask every origin for /favicon.ico: the console's icon (console/public, copied into the build), not a 404.
  router.get('/favicon.ico', (_req, res, next) => {
    const icon = path.join(dist, 'favicon.ico');
    if (!existsSync(icon)) return next();
    res.set('cache-control', 'public, max-age=86400').type('image/x-icon');
    res.sendFile(icon, (error) => {
      if (error) next(error);
    });
  });
  router.use('/admin', precompressed(dist));
  router.get(['/admin', '/admin/'], (req, res) => {
    const index = path.join(dist, 'index.html');
    if (!existsSync(index)) {
      res.status(503).type('text/plain').send('The admin console is not built: run `npm run build:console` (npm start does it).');
      return;
    }
    if (req.path === '/admin') return res.redirect(301, '/admin/');
    res.set('cache-control', 'no-cache').type('html').send(readFileSync(index));
  });
  return router;
};

/** Hashed assets are immutable; the build's `.gz` twin goes to browsers accepting gzip, so nothing is compressed per request. */
const precompressed = (dist: string): RequestHandler => {
  const files = express.static(dist, { index: false, fallthrough: true, immutable: true, maxAge: '365d' });
  return (req, res, next) => {
    if (!req.path.startsWith('/assets/') || !/\bgzip\b/.test(req.get('accept-encoding') ?? '')) return files(req, res, next);
    const file = path.join(dist, path.normalize(req.path).replace(/^(\.\.[/\\])+/, ''));
    if (!file.startsWith(dist) || !existsSync(`${file}.gz`)) return files(req, res, next);
    res.set({ 'content-encoding': 'gzip', vary: 'Accept-Encoding', 'cache-control': 'public, max-age=31536000, immutable' });
    res.type(path.extname(file));
    // send keeps a Content-Type already set, so the .gz twin goes out as the asset's own type.
    res.sendFile(`${file}.gz`, (error) => {
      if (error) next(error);
    });
  };
};
