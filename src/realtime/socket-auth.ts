import { parseCookie } from 'cookie';
import { SESSION_ENDED, TOKEN_EXPIRED } from '../auth/auth.errors.js';
import type { AuthContext } from '../auth/authenticator.js';
import { ACCESS_COOKIE } from '../auth/sessions.js';
import { AppError } from '../shared/app-error.js';
import type { SocketUser } from './protocol.js';

/** Cookie a front end may set for the gateway alone (read before `access_token`). */
export const SOCKET_COOKIE = 'socket_token';
/** A longer token is refused before any verification (AuthError TOKEN_TOO_LONG). */
export const MAX_TOKEN_LENGTH = 4096;

export type AuthErrorCode =
  'TOKEN_MISSING' | 'TOKEN_TOO_LONG' | 'TOKEN_INVALID' | 'TOKEN_EXPIRED' | 'MFA_REQUIRED' | 'SESSION_ENDED' | 'BANNED';

export const AUTH_ERROR_MESSAGES: Readonly<Record<AuthErrorCode, string>> = {
  TOKEN_MISSING: 'No access token',
  TOKEN_TOO_LONG: `Access token longer than ${MAX_TOKEN_LENGTH} characters`,
  TOKEN_INVALID: 'Invalid access token',
  TOKEN_EXPIRED: 'Access token expired',
  MFA_REQUIRED: 'Two-factor authentication must be completed',
  SESSION_ENDED: 'Session ended',
  BANNED: 'The account is banned',
};

export type AuthOutcome = Readonly<{ ok: true; user: SocketUser }> | Readonly<{ ok: false; error: AuthErrorCode; message: string }>;

export type HandshakeLike = Readonly<{ auth: unknown; headers: Readonly<Record<string, string | string[] | undefined>> }>;

/** The spec's order: auth field `socket_token`, cookie `socket_token`, cookie `access_token`. */
export const tokenFromHandshake = (handshake: HandshakeLike, cookiesAllowed: boolean): string | undefined => {
  const auth = handshake.auth as Record<string, unknown> | null | undefined;
  const explicit = auth && typeof auth === 'object' ? auth.socket_token : undefined;
  if (typeof explicit === 'string' && explicit !== '') return explicit;
  if (!cookiesAllowed) return undefined;
  const header = handshake.headers.cookie;
  if (typeof header !== 'string' || header === '') return undefined;
  const cookies = parseCookie(header);
  return cookies[SOCKET_COOKIE] || cookies[ACCESS_COOKIE] || undefined;
};

export const socketUserOf = (auth: AuthContext): SocketUser => ({
  userId: auth.userId,
  sessionId: auth.sessionId,
  username: auth.username,
  roles: auth.roles,
  permissions: auth.permissions,
});

/** Anything else (database down) is rethrown. */
export const refusalCode = (error: unknown): AuthErrorCode => {
  if (!(error instanceof AppError)) throw error;
  if (error.code === 'USER_BANNED') return 'BANNED';
  if (error.code === 'AUTH_MFA_REQUIRED') return 'MFA_REQUIRED';
  if (error.code !== 'UNAUTHORIZED') throw error;
  if (error.message === TOKEN_EXPIRED) return 'TOKEN_EXPIRED';
  if (error.message === SESSION_ENDED) return 'SESSION_ENDED';
  return 'TOKEN_INVALID';
};

export const refused = (error: AuthErrorCode): AuthOutcome => ({ ok: false, error, message: AUTH_ERROR_MESSAGES[error] });

/** Same checks as the HTTP APIs (signature, live session, ban). */
export const authenticateSocketToken = async (
  authenticateToken: (token: string) => Promise<AuthContext>,
  token: unknown,
): Promise<AuthOutcome> => {
  if (typeof token !== 'string' || token === '') return refused('TOKEN_MISSING');
  if (token.length > MAX_TOKEN_LENGTH) return refused('TOKEN_TOO_LONG');
  try {
    return { ok: true, user: socketUserOf(await authenticateToken(token)) };
  } catch (error) {
    return refused(refusalCode(error));
  }
};
