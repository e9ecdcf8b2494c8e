import type { Router } from 'express';
import type pg from 'pg';
import type { AuthKit } from '../../auth/auth-kit.js';
import type { Config } from '../../infra/config.js';
import type { Logger } from '../../infra/logger.js';
import { googleRoutes, googleUnconfiguredRoutes } from './google.js';
import { createPostgresLoginStateStore, createPostgresSeenNonceStore } from './login-state.js';
import { requireSession } from '../auth.adapter.js';
import { createSignInWithIdentity } from './sign-in.js';
import { steamRoutes } from './steam.js';

/** Steam always (it needs no client secret), Google when its client id and secret are set; a refusal lands on the front end's /login. */
export const identityProviderRoutes = (deps: { config: Config; auth: AuthKit; pool: pg.Pool; logger: Logger }): Router[] => {
  const { config, auth, pool, logger } = deps;
  const base = config.auth.publicBaseUrl;
  const onIdentity = createSignInWithIdentity(auth, { staffProviders: config.auth.staffIdentityProviders });
  const stateStore = createPostgresLoginStateStore(pool);
  const common = {
    stateStore,
    onIdentity,
    secureCookie: config.appEnv !== 'local',
    failureRedirect: `${config.frontendOrigin}/login`,
    logger: logger.child({ component: 'identity-providers' }),
    session: requireSession(auth.authenticator, 'public'),
  };
  const routers = [
    steamRoutes({
      ...common,
      realm: `${base}/`,
      returnTo: `${base}/auth/steam/return`,
      seenNonces: createPostgresSeenNonceStore(pool),
      openIdEndpoint: config.auth.steam.openIdEndpoint,
      claimedIdHost: config.auth.steam.claimedIdHost,
    }),
  ];
  const google = config.auth.google;
  routers.push(google ? googleRoutes({ ...common, ...google, redirectUri: `${base}/auth/google/callback` }) : googleUnconfiguredRoutes());
  return routers;
};
