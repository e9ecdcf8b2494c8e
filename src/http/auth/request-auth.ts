import type { Request, RequestHandler } from 'express';
import type { AuthContext, Authenticator } from '../../auth/authenticator.js';
import { authError } from '../../auth/auth.errors.js';
import { ACCESS_COOKIE, LEGACY_ACCESS_COOKIE, readCookie } from './cookies.js';
import { assertNotCrossSite } from './csrf.js';

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthContext;
  }
}

export type Surface = 'public' | 'admin';

const credential = (req: Request, surface: Surface): { token: string; via: 'bearer' | 'cookie' } | undefined => {
  const header = req.get('authorization');
  const bearer = header && /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  if (bearer) return { token: bearer, via: 'bearer' };
  const cookie = readCookie(req, ACCESS_COOKIE) ?? (surface === 'admin' ? readCookie(req, LEGACY_ACCESS_COOKIE) : undefined);
  return cookie ? { token: cookie, via: 'cookie' } : undefined;
};

/**
 * The caller of a request, or a thrown 401 / 403: a JWT from the Bearer header, else the access_token cookie, else on
 * the back office the legacy jwt_access_token cookie; API keys (x-api-key) on the public API only.
 */
export const authenticateRequest = async (authenticator: Authenticator, req: Request, surface: Surface): Promise<AuthContext> => {
  const apiKey = surface === 'public' ? req.get('x-api-key') : undefined;
  if (apiKey) return authenticator.authenticateApiKey(apiKey);
  const found = credential(req, surface);
  if (!found) throw authError('unauthorized');
  if (found.via === 'cookie') assertNotCrossSite(req, authenticator.allowedOrigins);
  return authenticator.authenticateToken(found.token, found.via);
};

/** Middleware: sets req.auth or fails the request. */
export const requireAuth = (authenticator: Authenticator, surface: Surface): RequestHandler => (req, _res, next) => {
  authenticateRequest(authenticator, req, surface).then((auth) => {
    req.auth = auth;
    next();
  }, next);
};

/** The authenticated caller of a route behind `requireAuth` or a guard. */
export const authOf = (req: Request): AuthContext => {
  if (!req.auth) throw authError('unauthorized');
  return req.auth;
};
