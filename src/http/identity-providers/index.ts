export type { ExternalIdentity } from '../../auth/use-cases/identity-sign-in.js';
export type { OnIdentity } from './login-state.js';

export { createSignInWithIdentity } from './sign-in.js';
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
