import type { Request, Response } from 'express';

/** A user identity an external provider has vouched for, after every check of the redirect flow passed. */
export type VerifiedIdentity = Readonly<{
  provider: 'google' | 'steam';
  /** The provider's stable id of the account: the OpenID Connect `sub`, or the 17-digit SteamID64. */
  subject: string;
  email?: string;
  /** True only when the provider said `email_verified: true`; link accounts by e-mail only then. */
  emailVerified?: boolean;
}>;

/**
 * Called once per successful login; it owns the response (create or link the user, start the
 * session, set its cookies, redirect to the front end). What it throws goes to the error handler.
 */
export type OnIdentity = (identity: VerifiedIdentity, req: Request, res: Response) => Promise<void>;

export { googleRoutes, type GoogleDeps } from './google.js';
export { steamRoutes, STEAM_OPENID_ENDPOINT, type SteamDeps } from './steam.js';
export {
  AUTH_PROVIDER_FAILED,
  LOGIN_TTL_MS,
  createMemoryLoginStateStore,
  createMemorySeenNonceStore,
  createPostgresLoginStateStore,
  createPostgresSeenNonceStore,
  loginStatesMigration,
  type LoginRecord,
  type LoginStateStore,
  type SeenNonceStore,
} from './login-state.js';
