import type pg from 'pg';
import type { RegisteredUser } from '../domain/user/user.state.js';
import { authError, SESSION_ENDED, TOKEN_EXPIRED } from './auth.errors.js';
import { sha256 } from '../shared/hash.js';
import type { Tokens } from './sessions.js';

export { SESSION_ENDED, TOKEN_EXPIRED };

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

export type AuthenticatorDeps = Readonly<{
  tokens: Tokens;
  pool: pg.Pool;
  /** Origins whose cookie-carried requests the public API trusts (the player site). */
  allowedOrigins: readonly string[];
  /** Origins whose cookie-carried requests the back office trusts besides its own (the console is same-origin). */
  adminOrigins?: readonly string[];
}>;

type AccessRow = {
  user_id: string;
  state: RegisteredUser;
  roles: string[];
  permissions: string[];
  is_banned: boolean;
  username: string | null;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const createAuthenticator = (deps: AuthenticatorDeps) => {
  const fromSession = async (userId: number, sessionId: string): Promise<AccessRow | undefined> => {
    if (!UUID.test(sessionId)) return undefined;
    const { rows } = await deps.pool.query<AccessRow>(
      `SELECT a.user_id, a.state, a.roles, a.permissions, a.is_banned, a.username
       FROM sessions s JOIN user_access a ON a.user_id = s.user_id
       WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now()`,
      [sessionId, userId],
    );
    return rows[0];
  };

  const context = (row: AccessRow, sessionId: string | null, via: AuthContext['via']): AuthContext => {
    if (row.is_banned) throw authError('banned');
    const { roles, permissions, username, state: user } = row;
    return { userId: Number(row.user_id), sessionId, via, roles, permissions, username, user };
  };

  const authenticateToken = async (token: string, via: 'bearer' | 'cookie' = 'bearer'): Promise<AuthContext> => {
    const claims = await deps.tokens.verifyAccess(token);
    if (claims === 'mfa') throw authError('mfaRequired');
    if (typeof claims === 'string') throw authError('unauthorized', claims === 'expired' ? TOKEN_EXPIRED : 'Invalid access token');
    const row = await fromSession(claims.userId, claims.sessionId);
    if (!row) throw authError('unauthorized', SESSION_ENDED);
    return context(row, claims.sessionId, via);
  };

  const authenticateApiKey = async (key: string): Promise<AuthContext> => {
    const { rows } = await deps.pool.query<AccessRow>(
      `SELECT a.user_id, a.state, a.roles, a.permissions, a.is_banned, a.username
       FROM api_keys k JOIN user_access a ON a.user_id = k.user_id WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [sha256(key)],
    );
    if (!rows[0]) throw authError('unauthorized', 'Invalid API key');
    return context(rows[0], null, 'api-key');
  };

  /** Origins whose cookie-carried requests are trusted (the HTTP adapter's cross-site check), per surface. */
  return { authenticateToken, authenticateApiKey, allowedOrigins: deps.allowedOrigins, adminOrigins: deps.adminOrigins ?? [] };
};

export type Authenticator = ReturnType<typeof createAuthenticator>;
