import type { Request, Response } from 'express';
import type pg from 'pg';
import type { Users } from '../commands/users.js';
import type { RegisteredUser } from '../domain/user/user.state.js';
import { authError } from '../http/errors.js';
import type { Redis } from '../infra/redis.js';
import { createAuthenticator, type Authenticator } from './authenticator.js';
import { createCaptcha, type CaptchaCheck, type CaptchaConfig } from './captcha.js';
import { setAuthCookies, type CookiePolicy } from './cookies.js';
import { createMfa, type Mfa } from './mfa.js';
import { createPasswordVerifier, type PasswordVerifier } from './passwords.js';
import { createSessions, type Sessions } from './sessions.js';
import { createThrottle, type Throttle, type ThrottleConfig } from './throttle.js';
import { createTokens, type KeyPair, type Tokens } from './tokens.js';

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
  /** Secure cookies everywhere but APP_ENV=local. */
  secureCookies: boolean;
  /** Where identity-provider sign-ins land. */
  frontendOrigin: string;
}>;

/** Everything the auth routes, the identity-provider sign-in and the back office share. */
export type AuthKit = Readonly<{
  users: Users;
  pool: pg.Pool;
  tokens: Tokens;
  sessions: Sessions;
  passwords: PasswordVerifier;
  mfa: Mfa;
  throttle: Throttle;
  captcha: CaptchaCheck;
  authenticator: Authenticator;
  cookies: CookiePolicy;
  settings: AuthSettings;
  geoCheck(req: Request): void;
  /** Creates a session, sets both cookies, returns the tokens. */
  startSession(userId: number, req: Request, res: Response): Promise<{ accessToken: string; refreshToken: string }>;
}>;

export const createAuthKit = async (deps: Readonly<{ users: Users; pool: pg.Pool; redis?: Redis | undefined; settings: AuthSettings }>): Promise<AuthKit> => {
  const { settings } = deps;
  const tokens = createTokens({ keys: settings.keys, accessTtlSeconds: settings.accessTtlSeconds, mfaTtlSeconds: settings.mfaChallengeTtlSeconds });
  const sessions = createSessions({ pool: deps.pool, refreshTtlSeconds: settings.refreshTtlSeconds });
  const cookies: CookiePolicy = { secure: settings.secureCookies, accessMaxAgeSeconds: settings.accessTtlSeconds, refreshMaxAgeSeconds: settings.refreshTtlSeconds };
  const blocked = new Set(settings.geoBlockedCountries.map((c) => c.toUpperCase()));
  return {
    users: deps.users,
    pool: deps.pool,
    tokens,
    sessions,
    passwords: await createPasswordVerifier(),
    mfa: createMfa({ pool: deps.pool, key: settings.mfaKey }),
    throttle: createThrottle(settings.throttle, deps.redis),
    captcha: createCaptcha(settings.captcha),
    authenticator: createAuthenticator({ tokens, pool: deps.pool, allowedOrigins: settings.allowedOrigins }),
    cookies,
    settings,
    geoCheck: (req) => {
      const country = req.get(settings.trustedCountryHeader)?.trim().toUpperCase();
      if (country && blocked.has(country)) throw authError('geoBlocked');
    },
    startSession: async (userId, req, res) => {
      const session = await sessions.create(userId, { ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null });
      const accessToken = await tokens.signAccess({ userId, sessionId: session.id });
      setAuthCookies(res, cookies, { accessToken, refreshToken: session.refreshToken });
      return { accessToken, refreshToken: session.refreshToken };
    },
  };
};

/** The user as the public API shows it to its owner. */
export const publicUser = (u: RegisteredUser) => ({
  id: u.userId, email: u.email, username: u.username, country: u.country, roles: u.roles, mfaEnabled: u.mfaEnabled, createdAt: u.createdAt,
});
