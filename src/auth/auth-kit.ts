import { left, right } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { createCredentials, type Credentials } from '../commands/user-credentials.js';
import type { Users } from '../commands/users.js';
import type { RegisteredUser } from '../domain/user/user.state.js';
import type { Logger } from '../infra/logger.js';
import type { Redis } from '../infra/redis.js';
import type { AppError, AppResult } from '../shared/app-error.js';
import { authError } from './auth.errors.js';
import { createAuthenticator, type Authenticator } from './authenticator.js';
import { createCaptcha, createThrottle, type CaptchaCheck, type CaptchaConfig, type Throttle, type ThrottleConfig } from './guards.js';
import { createMfa, type Mfa } from './mfa.js';
import { createPasswordVerifier, type PasswordVerifier } from './passwords.js';
import { createSessions, type Sessions } from './sessions.js';
import { createTokens, type KeyPair, type Tokens } from './sessions.js';

export type AuthSettings = Readonly<{
  keys: KeyPair;
  mfaKey: Buffer;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
  mfaChallengeTtlSeconds: number;
  captcha: CaptchaConfig;
  throttle: ThrottleConfig;
  geoBlockedCountries: readonly string[];
  trustedCountryHeader: string;
  allowedOrigins: readonly string[];
  /** Origins besides its own whose cookie-carried requests the back office accepts (an admin tool outside production). */
  adminOrigins?: readonly string[];
  /** Secure cookies everywhere but APP_ENV=local. */
  secureCookies: boolean;
  frontendOrigin: string;
}>;

/** Where a call comes from, as its transport saw it; `country` is the trusted proxy's header, untouched. */
export type Client = Readonly<{
  ip: string | null;
  userAgent: string | null;
  country: string | null;
  referrer: string | null;
  log?: Pick<Logger, 'warn'>;
}>;

export type SessionTokens = Readonly<{ accessToken: string; refreshToken: string }>;

export type AuthKit = Readonly<{
  users: Users;
  pool: pg.Pool;
  credentials: Credentials;
  tokens: Tokens;
  sessions: Sessions;
  passwords: PasswordVerifier;
  mfa: Mfa;
  throttle: Throttle;
  captcha: CaptchaCheck;
  authenticator: Authenticator;
  settings: AuthSettings;
  geoRefusal(client: Client): AppError | undefined;
  startSession(userId: number, client: Client): Promise<SessionTokens>;
  activeUser(userId: number): Promise<AppResult<RegisteredUser>>;
}>;

export type AuthKitDeps = Readonly<{ users: Users; pool: pg.Pool; redis?: Redis | undefined; settings: AuthSettings }>;

export const createAuthKit = async (deps: AuthKitDeps): Promise<AuthKit> => {
  const { settings } = deps;
  const tokens = createTokens({
    keys: settings.keys,
    accessTtlSeconds: settings.accessTtlSeconds,
    mfaTtlSeconds: settings.mfaChallengeTtlSeconds,
  });
  const sessions = createSessions({ pool: deps.pool, refreshTtlSeconds: settings.refreshTtlSeconds });
  const credentials = createCredentials(deps.pool);
  const blocked = new Set(settings.geoBlockedCountries.map((c) => c.toUpperCase()));
  return {
    users: deps.users,
    pool: deps.pool,
    credentials,
    tokens,
    sessions,
    passwords: await createPasswordVerifier(),
    mfa: createMfa({ credentials, key: settings.mfaKey }),
    throttle: createThrottle(settings.throttle, deps.redis),
    captcha: createCaptcha(settings.captcha),
    authenticator: createAuthenticator({
      tokens,
      pool: deps.pool,
      allowedOrigins: settings.allowedOrigins,
      adminOrigins: settings.adminOrigins ?? [],
    }),
    settings,
    geoRefusal: (client) => {
      const country = client.country?.trim().toUpperCase();
      return country && blocked.has(country) ? authError('geoBlocked') : undefined;
    },
    startSession: async (userId, client) => {
      const session = await sessions.create(userId, { ip: client.ip, userAgent: client.userAgent });
      const accessToken = await tokens.signAccess({ userId, sessionId: session.id });
      return { accessToken, refreshToken: session.refreshToken };
    },
    activeUser: async (userId) => {
      const access = await deps.users.access(userId);
      if (!access) return left(authError('unauthorized', 'Unknown user'));
      return access.isBanned ? left(authError('banned')) : right(access.state);
    },
  };
};

export const publicUser = (u: RegisteredUser) => ({
  id: u.userId,
  email: u.email,
  username: u.username,
  country: u.country,
  roles: u.roles,
  mfaEnabled: u.mfaEnabled,
  createdAt: u.createdAt,
});
