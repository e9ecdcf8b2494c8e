import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { isStaff } from '../../domain/user/permissions.js';
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
  /** True only when the provider said `email_verified: true`. */
  emailVerified?: boolean;
}>;

/**
 * What an identity sign-in leads to: a session, or (the account has MFA on) the same challenge a password sign-in
 * hands out. `needsUsername`: accounts created here have none yet, and must choose one before betting.
 */
export type IdentitySignedIn =
  Readonly<{ tokens: SessionTokens; needsUsername: boolean }> | Readonly<{ mfaToken: string; needsUsername: boolean }>;

export type IdentitySettings = Readonly<{
  /** Providers that staff accounts (any admin role or permission) may sign in with; none by default. */
  staffProviders: readonly ExternalIdentity['provider'][];
}>;

/**
 * Sign-in with an identity provider. An identity signs into the account it was linked to, from inside a signed-in
 * session of that account (`linkIdentity`); an unknown identity makes a new account. An e-mail address never links:
 * whoever controls a provider account verified for someone's address does not become them.
 */
export const identitySignInUseCases = (kit: AuthKit, settings: IdentitySettings = { staffProviders: [] }) => {
  const resolveUser = async (identity: ExternalIdentity, client: Client): Promise<Either<AppError | UserError, number>> => {
    const linked = await kit.users.idByKey(identity.provider, identity.subject);
    if (linked !== undefined) return right(linked);
    const email = identity.email && identity.emailVerified === true ? identity.email : null;
    // An account already holds this address: it signs in with its password and links the provider from inside.
    if (email !== null && (await kit.users.idByKey('email', email)) !== undefined) return left(authError('identityNotLinked'));
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
    const staff = isStaff(access.roles) || access.permissions.length > 0;
    if (staff && !settings.staffProviders.includes(identity.provider)) return left(authError('staffPasswordOnly'));
    const needsUsername = access.username === null;
    if (access.state.mfaEnabled) return right({ mfaToken: await kit.tokens.signMfaChallenge(userId.right), needsUsername });
    return right({ tokens: await kit.startSession(userId.right, client), needsUsername });
  };

  /** Links an identity to the signed-in user whose session started the link; an identity linked elsewhere is refused. */
  const linkIdentity = async (userId: number, identity: ExternalIdentity): Promise<Either<AppError | UserError, number>> => {
    const user = await kit.activeUser(userId);
    if (isLeft(user)) return user;
    const email = identity.email && identity.emailVerified === true ? identity.email : null;
    const owner = await kit.users.linkIdentity(userId, { provider: identity.provider, subject: identity.subject, email });
    if (isLeft(owner)) return owner;
    return owner.right === userId ? right(userId) : left(authError('identityInUse'));
  };

  return { signInWithIdentity, linkIdentity };
};
