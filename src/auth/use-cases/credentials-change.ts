import { left, right } from 'fp-ts/lib/Either.js';
import type { AppResult } from '../../shared/app-error.js';
import { authError } from '../auth.errors.js';
import type { AuthKit, Client, SessionTokens } from '../auth-kit.js';
import { hashPassword } from '../passwords.js';
import { revokeAllAccess, type AccessEnded } from '../sessions.js';

/**
 * A signed-in user's own credentials. Changing the password ends every session, refresh token and API key of the
 * account, as a ban does, then opens one new session for the caller; signing out everywhere ends them all.
 */
export const credentialsChangeUseCases = (kit: AuthKit) => {
  const changePassword = async (
    userId: number,
    input: Readonly<{ currentPassword?: string | undefined; newPassword: string }>,
    client: Client,
  ): Promise<AppResult<SessionTokens>> => {
    const account = `password-change:${userId}`;
    const address = client.ip ?? 'unknown';
    const throttled = await kit.throttle.check(account, address);
    if (throttled) return left(throttled);
    const stored = await kit.credentials.passwordHash(userId);
    // An account made through an identity provider has no password yet: its session alone may set the first one.
    if (stored && !(await kit.passwords.verify(stored, input.currentPassword ?? ''))) {
      await kit.throttle.fail(account, address);
      return left(authError('invalidCredentials', 'The current password is wrong'));
    }
    await kit.throttle.succeed(account);
    await kit.credentials.replacePassword(userId, await hashPassword(input.newPassword));
    await revokeAllAccess(kit.pool, userId, 'password changed', userId);
    return right(await kit.startSession(userId, client));
  };

  const signOutEverywhere = (userId: number): Promise<AccessEnded> => revokeAllAccess(kit.pool, userId, 'signed out everywhere', userId);

  return { changePassword, signOutEverywhere };
};
