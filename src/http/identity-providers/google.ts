import { Router, type NextFunction, type Request, type Response } from 'express';
import * as oidc from 'openid-client';
import { z } from 'zod';
import type { RouteDocs } from '../access.js';
import { HttpError } from '../http-errors.js';
import { documentedRoutes } from '../openapi.js';
import { loginFlow, noStore, sameSecret, type LoginFlowDeps } from './login-state.js';

export type GoogleDeps = LoginFlowDeps &
  Readonly<{
    /** `https://accounts.google.com` in production; discovery reads `<issuerUrl>/.well-known/openid-configuration`. */
    issuerUrl: string;
    clientId: string;
    clientSecret: string;
    /** The public, absolute URL of GET /auth/google/callback, as registered with the provider. */
    redirectUri: string;
    /** Plain http to the provider: tests against the local stand-in only. */
    allowInsecure?: boolean;
  }>;

const SCOPE = 'openid email profile';

/** The server-side half of a pending login; the browser holds only the random id it is stored under. */
const PendingLogin = z.object({
  state: z.string(),
  nonce: z.string(),
  codeVerifier: z.string(),
  createdAt: z.number(),
  linkUserId: z.number().int().positive().optional(),
});

const UNCONFIGURED = '503 IDENTITY_PROVIDER_NOT_CONFIGURED when this server has no Google client (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET).';
const START_DOCS: RouteDocs = {
  summary: 'Start a sign-in with the identity provider (OpenID Connect, PKCE)',
  description: UNCONFIGURED,
  tag: 'identity-providers',
  responses: {
    302: { description: 'Redirect to the identity provider' },
    503: { description: 'IDENTITY_PROVIDER_NOT_CONFIGURED' },
  },
};
const CALLBACK_DOCS: RouteDocs = {
  summary: "The identity provider's callback: exchanges the code, signs in and sets the cookies",
  description: UNCONFIGURED,
  tag: 'identity-providers',
  responses: {
    302: { description: 'Redirect to the site, signed in or with the refusal reason' },
    503: { description: 'IDENTITY_PROVIDER_NOT_CONFIGURED' },
  },
};

/**
 * Google's routes on a server without a Google client: they exist and are documented as the spec lists them, and
 * answer that sign-in with Google is not available here, instead of a bare 404.
 */
export const googleUnconfiguredRoutes = (): Router => {
  const router = Router();
  const route = documentedRoutes(router);
  const refuse = (_req: Request, _res: Response, next: NextFunction): void =>
    next(new HttpError(503, 'IDENTITY_PROVIDER_NOT_CONFIGURED', 'Sign-in with Google is not configured on this server'));
  route('get', '/auth/google', { kind: 'none' }, START_DOCS, refuse);
  route('get', '/auth/google/callback', { kind: 'none' }, CALLBACK_DOCS, refuse);
  return router;
};

/** OpenID Connect code flow with PKCE, state and nonce; openid-client checks the ID token, state is checked here too. */
export const googleRoutes = (deps: GoogleDeps): Router => {
  const now = deps.now ?? Date.now;
  const flow = loginFlow('google', new URL(deps.redirectUri).pathname, deps);
  const { refuse } = flow;

  // Without enableNonRepudiationChecks, openid-client trusts TLS for ID tokens from the token endpoint and skips their signature.
  const setup = [oidc.enableNonRepudiationChecks, ...(deps.allowInsecure ? [oidc.allowInsecureRequests] : [])];
  let configuration: Promise<oidc.Configuration> | undefined;
  const config = (): Promise<oidc.Configuration> => {
    configuration ??= oidc
      .discovery(new URL(deps.issuerUrl), deps.clientId, deps.clientSecret, undefined, { execute: setup })
      .catch((error: unknown) => {
        configuration = undefined;
        throw error;
      });
    return configuration;
  };

  /** Stores the pending login (with the linking user, if any) and sends the browser to the provider. */
  const begin = async (res: Response, next: NextFunction, linkUserId?: number): Promise<void> => {
    noStore(res);
    let provider: oidc.Configuration;
    try {
      provider = await config();
    } catch (error) {
      refuse('discovery-failed', res, next, error);
      return;
    }
    const pending = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      createdAt: now(),
      ...(linkUserId === undefined ? {} : { linkUserId }),
    } satisfies z.infer<typeof PendingLogin>;
    await flow.start(res, pending);
    const url = oidc.buildAuthorizationUrl(provider, {
      redirect_uri: deps.redirectUri,
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    res.redirect(302, url.href);
  };

  const router = Router();
  const route = documentedRoutes(router);

  route('get', '/auth/google', { kind: 'none' }, START_DOCS, (_req, res, next) => begin(res, next));

  route('get', '/auth/google/callback', { kind: 'none' }, CALLBACK_DOCS, async (req, res, next) => {
    noStore(res);
    const taken = await flow.take(req, PendingLogin);
    if ('refused' in taken) return refuse(taken.refused, res, next);
    const { pending } = taken;

    const query = new URL(req.originalUrl, 'http://callback.invalid').searchParams;
    const states = query.getAll('state');
    if (states.length !== 1 || !sameSecret(states[0], pending.state)) return refuse('state-mismatch', res, next);

    // openid-client takes the redirect_uri for the token request from this URL: the configured one, not the Host header.
    const currentUrl = new URL(deps.redirectUri);
    currentUrl.search = query.toString();
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(await config(), currentUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      return refuse('code-exchange-failed', res, next, error);
    }
    if (!claims) return refuse('no-id-token', res, next);

    await flow.signIn(
      {
        provider: 'google',
        subject: claims.sub,
        ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
        emailVerified: claims.email_verified === true,
      },
      req,
      res,
      pending.linkUserId,
    );
  });

  if (deps.session) {
    route(
      'get',
      '/auth/google/link',
      { kind: 'auth' },
      {
        summary: "Link a Google account to the signed-in user's account (a session, not an API key)",
        tag: 'identity-providers',
        addition: true,
        responses: { 302: { description: 'Redirect to the identity provider; its callback links and returns to /account' } },
      },
      deps.session,
      (req: Request, res, next) => begin(res, next, req.auth!.userId),
    );
  }

  return router;
};
