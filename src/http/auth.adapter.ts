import { parseCookie, stringifySetCookie } from 'cookie';
import type { Request, RequestHandler, Response } from 'express';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import type { AuthSettings, Client } from '../auth/auth-kit.js';
import { authError } from '../auth/auth.errors.js';
import type { AuthContext, Authenticator } from '../auth/authenticator.js';
import { ACCESS_COOKIE } from '../auth/sessions.js';
import type { UserError } from '../domain/user/user.errors.js';
import { AppError } from '../shared/app-error.js';
import { userError } from '../commands/errors.js';

export { ACCESS_COOKIE };
export const REFRESH_COOKIE = 'refresh_token';
/** Legacy alias written by the admin front end; read only on the back office. */
export const LEGACY_ACCESS_COOKIE = 'jwt_access_token';

export type CookiePolicy = Readonly<{ secure: boolean; accessMaxAgeSeconds: number; refreshMaxAgeSeconds: number }>;

const base = (policy: CookiePolicy) => ({ httpOnly: true, sameSite: 'lax' as const, path: '/', secure: policy.secure });

type Tokens = Readonly<{ accessToken: string; refreshToken: string }>;

export const setAuthCookies = (res: Response, policy: CookiePolicy, tokens: Tokens): void => {
  const set = (name: string, value: string, maxAge: number) =>
    res.append('Set-Cookie', stringifySetCookie({ name, value, ...base(policy), maxAge }));
  set(ACCESS_COOKIE, tokens.accessToken, policy.accessMaxAgeSeconds);
  set(REFRESH_COOKIE, tokens.refreshToken, policy.refreshMaxAgeSeconds);
};

export const clearAuthCookies = (res: Response, policy: CookiePolicy): void => {
  for (const name of [ACCESS_COOKIE, REFRESH_COOKIE]) {
    res.append('Set-Cookie', stringifySetCookie({ name, value: '', ...base(policy), maxAge: 0 }));
  }
};

export const readCookie = (req: Request, name: string): string | undefined => {
  const header = req.headers.cookie;
  return header ? parseCookie(header)[name] : undefined;
};

type CookieSettings = Readonly<{ secureCookies: boolean; accessTtlSeconds: number; refreshTtlSeconds: number }>;

export const cookiePolicy = (settings: CookieSettings): CookiePolicy => ({
  secure: settings.secureCookies,
  accessMaxAgeSeconds: settings.accessTtlSeconds,
  refreshMaxAgeSeconds: settings.refreshTtlSeconds,
});

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** An unsafe request carried by cookies must come from an allowed origin: `Origin`, else `Sec-Fetch-Site`; neither means no browser. */
export const assertNotCrossSite = (req: Request, allowedOrigins: readonly string[]): void => {
  if (SAFE.has(req.method)) return;
  const origin = req.get('origin');
  if (origin !== undefined) {
    const own = `${req.protocol}://${req.get('host') ?? ''}`;
    if (origin !== own && !allowedOrigins.includes(origin)) throw authError('crossSite');
    return;
  }
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw authError('crossSite');
};

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

/** The caller, or a thrown 401 / 403: Bearer JWT, access_token cookie, the legacy cookie (back office), x-api-key (public API). */
export const authenticateRequest = async (authenticator: Authenticator, req: Request, surface: Surface): Promise<AuthContext> => {
  const apiKey = surface === 'public' ? req.get('x-api-key') : undefined;
  if (apiKey) return authenticator.authenticateApiKey(apiKey);
  const found = credential(req, surface);
  if (!found) throw authError('unauthorized');
  // The back office trusts cookies only from its own origin (and a configured admin tool), never the player site's.
  if (found.via === 'cookie') assertNotCrossSite(req, surface === 'admin' ? authenticator.adminOrigins : authenticator.allowedOrigins);
  return authenticator.authenticateToken(found.token, found.via);
};

export const requireAuth =
  (authenticator: Authenticator, surface: Surface): RequestHandler =>
  (req, _res, next) => {
    authenticateRequest(authenticator, req, surface).then((auth) => {
      req.auth = auth;
      next();
    }, next);
  };

/** Like requireAuth, but only a session: an API key never manages MFA, sessions, credentials or linked identities. */
export const requireSession =
  (authenticator: Authenticator, surface: Surface): RequestHandler =>
  (req, _res, next) => {
    authenticateRequest(authenticator, req, surface).then((auth) => {
      if (auth.via === 'api-key') return next(authError('sessionRequired'));
      req.auth = auth;
      next();
    }, next);
  };

export const authOf = (req: Request): AuthContext => {
  if (!req.auth) throw authError('unauthorized');
  return req.auth;
};

export const clientOf = (req: Request, settings: Pick<AuthSettings, 'trustedCountryHeader'>): Client => ({
  ip: req.ip ?? null,
  userAgent: req.get('user-agent') ?? null,
  country: req.get(settings.trustedCountryHeader) ?? null,
  referrer: req.get('referer') ?? null,
  log: req.log,
});

/** The value of a use case's answer, or its refusal thrown for the error handler. */
export const valueOf = <T>(result: Either<AppError | UserError, T>): T => {
  if (!isLeft(result)) return result.right;
  throw result.left instanceof AppError ? result.left : userError(result.left);
};

export const refuseIf = (refusal: AppError | undefined): void => {
  if (refusal) throw refusal;
};
