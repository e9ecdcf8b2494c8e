import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { UserError } from '../../domain/user/user.errors.js';
import type { AppError } from '../../shared/app-error.js';
import { authError } from '../auth.errors.js';
import type { AuthKit, Client, SessionTokens } from '../auth-kit.js';

/** A user identity an external provider has vouched for, after every check of its redirect flow passed. */
export type ExternalIdentity = Readonly<{
  provider: 'google' | 'steam';
  /** The provider's stable id of the account: the OpenID Connect `sub`, or the 17-digit SteamID64. */
  subject: string;
  email?: string;
  /** True only when the provider said `email_verified: true`; link accounts by e-mail only then. */
  emailVerified?: boolean;
}>;

/** `needsUsername`: accounts created here have none yet, and must choose one before betting. */
export type IdentitySignedIn = Readonly<{ tokens: SessionTokens; needsUsername: boolean }>;

/** Sign-in with an identity provider: find the user of the identity, else link it by verified e-mail, else create one. */
export const identitySignInUseCases = (kit: AuthKit) => {
  const resolveUser = async (identity: ExternalIdentity, client: Client): Promise<Either<UserError, number>> => {
    const linked = await kit.users.idByKey(identity.provider, identity.subject);
    if (linked !== undefined) return right(linked);
    const email = identity.email && identity.emailVerified === true ? identity.email : null;
    const byEmail = email === null ? undefined : await kit.users.idByKey('email', email);
    if (byEmail !== undefined) return kit.users.linkIdentity(byEmail, { provider: identity.provider, subject: identity.subject, email });
    const created = await kit.users.register({
      email,
      username: null,
      passwordHash: null,
      country: client.country?.toUpperCase() ?? null,
      referrerCode: null,
      marketingOptIn: false,
      provider: identity.provider,
      registration: { ip: client.ip, userAgent: client.userAgent, country: client.country, referrer: client.referrer },
      identity: { provider: identity.provider, subject: identity.subject, email },
    });
    if (!isLeft(created)) return right(created.right.userId);
    // Lost a race with a concurrent first sign-in of the same identity: use the winner.
    const winner = await kit.users.idByKey(identity.provider, identity.subject);
    return winner === undefined ? created : right(winner);
  };

  const signInWithIdentity = async (
    identity: ExternalIdentity,
    client: Client,
  ): Promise<Either<AppError | UserError, IdentitySignedIn>> => {
    const blocked = kit.geoRefusal(client);
    if (blocked) return left(blocked);
    const userId = await resolveUser(identity, client);
    if (isLeft(userId)) return userId;
    const access = await kit.users.access(userId.right);
    if (!access) return left(authError('unauthorized'));
    if (access.isBanned) return left(authError('banned'));
    return right({ tokens: await kit.startSession(userId.right, client), needsUsername: access.username === null });
  };

  return { signInWithIdentity };
};
