import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { RegisteredUser } from '../../domain/user/user.state.js';
import type { UserError } from '../../domain/user/user.errors.js';
import type { AppError, AppResult } from '../../shared/app-error.js';
import { authError } from '../auth.errors.js';
import type { AuthKit, Client, SessionTokens } from '../auth-kit.js';
import { hashPassword } from '../passwords.js';

export type SignUp = Readonly<{
  email: string;
  username: string;
  password: string;
  country: string;
  referrerCode?: string | undefined;
  marketingOptIn?: boolean | undefined;
}>;
export type SignedIn = Readonly<{ user: RegisteredUser; tokens: SessionTokens }>;
/** A password sign-in either opens a session or, with MFA on, hands out a challenge token for the second step. */
export type PasswordSignIn = SignedIn | Readonly<{ user: RegisteredUser; mfaToken: string }>;

export const signInUseCases = (kit: AuthKit) => {
  /** What every sign-up and password sign-in passes first, before its body is even read: region, then captcha. */
  const admit = async (client: Client, captchaToken: string | undefined): Promise<AppError | undefined> =>
    kit.geoRefusal(client) ?? kit.captcha(captchaToken, client.ip, client.log);

  const signUp = async (input: SignUp, client: Client): Promise<Either<UserError, SignedIn>> => {
    const registered = await kit.users.register({
      email: input.email,
      username: input.username,
      passwordHash: await hashPassword(input.password),
      country: input.country,
      referrerCode: input.referrerCode ?? null,
      marketingOptIn: input.marketingOptIn ?? false,
      provider: 'password',
      registration: { ip: client.ip, userAgent: client.userAgent, country: client.country ?? input.country, referrer: client.referrer },
    });
    if (isLeft(registered)) return registered;
    return right({ user: registered.right, tokens: await kit.startSession(registered.right.userId, client) });
  };

  const signIn = async (input: Readonly<{ email: string; password: string }>, client: Client): Promise<AppResult<PasswordSignIn>> => {
    const account = `email:${input.email.toLowerCase()}`;
    const address = client.ip ?? 'unknown';
    const throttled = await kit.throttle.check(account, address);
    if (throttled) return left(throttled);
    const userId = await kit.users.idByKey('email', input.email);
    const stored = userId === undefined ? undefined : await kit.credentials.passwordHash(userId);
    // Unknown e-mails verify against a dummy hash: same answer, same work.
    if (!(await kit.passwords.verify(stored, input.password)) || userId === undefined) {
      await kit.throttle.fail(account, address);
      return left(authError('invalidCredentials'));
    }
    const user = await kit.activeUser(userId);
    if (isLeft(user)) return user;
    await kit.throttle.succeed(account);
    if (user.right.mfaEnabled) return right({ user: user.right, mfaToken: await kit.tokens.signMfaChallenge(userId) });
    return right({ user: user.right, tokens: await kit.startSession(userId, client) });
  };

  /** The second step: the challenge token is spent once, and only with a right code. */
  const completeMfaSignIn = async (input: Readonly<{ mfaToken: string; code: string }>, client: Client): Promise<AppResult<SignedIn>> => {
    const challenge = await kit.tokens.verifyMfaChallenge(input.mfaToken);
    if (typeof challenge === 'string') return left(authError('unauthorized', 'Invalid or expired MFA token'));
    const used = await kit.pool.query('SELECT 1 FROM mfa_challenges_used WHERE jti = $1', [challenge.jti]);
    if (used.rows.length > 0) return left(authError('unauthorized', 'MFA token already used'));
    const account = `mfa:${challenge.userId}`;
    const address = client.ip ?? 'unknown';
    const throttled = await kit.throttle.check(account, address);
    if (throttled) return left(throttled);
    if (!(await kit.mfa.check(challenge.userId, input.code))) {
      await kit.throttle.fail(account, address);
      return left(authError('invalidMfaCode'));
    }
    const spent = await kit.pool.query('INSERT INTO mfa_challenges_used (jti, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      challenge.jti,
      challenge.expiresAt,
    ]);
    if (spent.rowCount === 0) return left(authError('unauthorized', 'MFA token already used'));
    const user = await kit.activeUser(challenge.userId);
    if (isLeft(user)) return user;
    await kit.throttle.succeed(account);
    return right({ user: user.right, tokens: await kit.startSession(user.right.userId, client) });
  };

  return { admit, signUp, signIn, completeMfaSignIn };
};
