import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { AppError } from '../../shared/app-error.js';
import { authError } from '../auth.errors.js';
import type { AuthKit, SessionTokens } from '../auth-kit.js';

/** `ended`: the refresh token is dead (unknown or reused), so the transport forgets the session's credentials. */
export type RefreshRefusal = Readonly<{ error: AppError; ended: boolean }>;

export const sessionUseCases = (kit: AuthKit) => ({
  refresh: async (refreshToken: string): Promise<Either<RefreshRefusal, SessionTokens>> => {
    const session = await kit.sessions.rotate(refreshToken);
    if (typeof session === 'string') {
      const message = session === 'reused' ? 'Refresh token reuse: the session was revoked' : 'Invalid refresh token';
      return left({ error: authError('unauthorized', message), ended: true });
    }
    const user = await kit.activeUser(session.userId);
    if (isLeft(user)) return left({ error: user.left, ended: false });
    const accessToken = await kit.tokens.signAccess({ userId: session.userId, sessionId: session.id });
    return right({ accessToken, refreshToken: session.refreshToken });
  },

  /** API keys have no session: nothing to end. */
  logOut: async (sessionId: string | null): Promise<void> => {
    if (sessionId) await kit.sessions.delete(sessionId);
  },
});
