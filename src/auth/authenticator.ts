import type { Request, RequestHandler } from 'express';
import type pg from 'pg';
import type { RegisteredUser } from '../domain/user/user.state.js';
import { authError } from '../http/errors.js';
import { ACCESS_COOKIE, LEGACY_ACCESS_COOKIE, readCookie } from './cookies.js';
import { assertNotCrossSite } from './csrf.js';
import { sha256 } from './sessions.js';
import type { Tokens } from './tokens.js';

/** Who is calling, with live roles and permissions (never from token claims). */
export type AuthContext = Readonly<{
  userId: number;
  /** Null for API keys, which have no session. */
  sessionId: string | null;
  via: 'bearer' | 'cookie' | 'api-key';
  roles: readonly string[];
  permissions: readonly string[];
  username: string | null;
  user: RegisteredUser;
}>;

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthContext;
  }
}

export type Surface = 'public' | 'admin';

export type AuthenticatorDeps = Readonly<{ tokens: Tokens; pool: pg.Pool; allowedOrigins: readonly string[] }>;

type AccessRow = { user_id: string; state: RegisteredUser; roles: string[]; permissions: string[]; is_banned: boolean; username: string | null };

/** Messages of the 401s a caller may want to tell apart (the gateway maps them to AuthError codes). */
export const TOKEN_EXPIRED = 'Access token expired';
export const SESSION_ENDED = 'Session ended';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The one request authenticator of every surface. A JWT (Bearer header, else the access_token cookie,
 * else on the back office the legacy jwt_access_token cookie) verified with the pinned algorithm, and
 * its server-side session read on every request (no cache: a revocation counts on the next request),
 * joined with the user's live access state. API keys (x-api-key, stored hashed) on the public API only.
 */
export const createAuthenticator = (deps: AuthenticatorDeps) => {
  const fromSession = async (userId: number, sessionId: string): Promise<AccessRow | undefined> => {
    if (!UUID.test(sessionId)) return undefined;
    const { rows } = await deps.pool.query<AccessRow>(
      `SELECT a.user_id, a.state, a.roles, a.permissions, a.is_banned, a.username
       FROM sessions s JOIN user_access a ON a.user_id = s.user_id
       WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now()`,
      [sessionId, userId]);
    return rows[0];
  };
  const fromApiKey = async (key: string): Promise<AccessRow | undefined> => {
    const { rows } = await deps.pool.query<AccessRow>(
      `SELECT a.user_id, a.state, a.roles, a.permissions, a.is_banned, a.username
       FROM api_keys k JOIN user_access a ON a.user_id = k.user_id WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [sha256(key)]);
    return rows[0];
  };

  const credential = (req: Request, surface: Surface): { token: string; via: 'bearer' | 'cookie' } | undefined => {
    const header = req.get('authorization');
    const bearer = header && /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (bearer) return { token: bearer, via: 'bearer' };
    const cookie = readCookie(req, ACCESS_COOKIE) ?? (surface === 'admin' ? readCookie(req, LEGACY_ACCESS_COOKIE) : undefined);
    return cookie ? { token: cookie, via: 'cookie' } : undefined;
  };

  const context = (row: AccessRow, sessionId: string | null, via: AuthContext['via']): AuthContext => {
    if (row.is_banned) throw authError('banned');
    return { userId: Number(row.user_id), sessionId, via, roles: row.roles, permissions: row.permissions, username: row.username, user: row.state };
  };

  /** The caller, or a thrown 401 / 403. */
  const authenticate = async (req: Request, surface: Surface): Promise<AuthContext> => {
    const apiKey = surface === 'public' ? req.get('x-api-key') : undefined;
    if (apiKey) {
      const row = await fromApiKey(apiKey);
      if (!row) throw authError('unauthorized', 'Invalid API key');
      return context(row, null, 'api-key');
    }
    const found = credential(req, surface);
    if (!found) throw authError('unauthorized');
    if (found.via === 'cookie') assertNotCrossSite(req, deps.allowedOrigins);
    return fromToken(found.token, found.via);
  };

  const fromToken = async (token: string, via: 'bearer' | 'cookie'): Promise<AuthContext> => {
    const claims = await deps.tokens.verifyAccess(token);
    if (claims === 'mfa') throw authError('mfaRequired');
    if (typeof claims === 'string') throw authError('unauthorized', claims === 'expired' ? TOKEN_EXPIRED : 'Invalid access token');
    const row = await fromSession(claims.userId, claims.sessionId);
    if (!row) throw authError('unauthorized', SESSION_ENDED);
    return context(row, claims.sessionId, via);
  };

  /** An access token presented outside an HTTP request (the realtime gateway): same checks, same errors. */
  const authenticateToken = (token: string): Promise<AuthContext> => fromToken(token, 'bearer');

  /** Middleware: sets req.auth or fails the request. */
  const required = (surface: Surface): RequestHandler => (req, _res, next) => {
    authenticate(req, surface).then((auth) => {
      req.auth = auth;
      next();
    }, next);
  };

  return { authenticate, authenticateToken, required };
};

export type Authenticator = ReturnType<typeof createAuthenticator>;

/** The authenticated caller of a route behind `required`. */
export const authOf = (req: Request): AuthContext => {
  if (!req.auth) throw authError('unauthorized');
  return req.auth;
};
