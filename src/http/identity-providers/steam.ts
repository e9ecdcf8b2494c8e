import { randomBytes } from 'node:crypto';
import { Router, type Response } from 'express';
import { z } from 'zod';
import { documentedRoutes } from '../openapi.js';
import { loginFlow, noStore, sameSecret, type LoginFlowDeps, type SeenNonceStore } from './login-state.js';

export const STEAM_OPENID_ENDPOINT = 'https://steamcommunity.com/openid/login';
const OPENID_NS = 'http://specs.openid.net/auth/2.0';
const IDENTIFIER_SELECT = 'http://specs.openid.net/auth/2.0/identifier_select';
/** Fields a genuine assertion signs; one that leaves any out could carry a forged value for it. */
const MUST_BE_SIGNED = ['op_endpoint', 'claimed_id', 'identity', 'return_to', 'response_nonce', 'assoc_handle'];
/** OpenID 2.0 response nonce: a UTC timestamp, then up to 255 printable ASCII characters. */
const RESPONSE_NONCE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)[\x21-\x7e]{0,255}$/;
const CLOCK_SKEW_MS = 60_000;

export type SteamDeps = LoginFlowDeps &
  Readonly<{
    /** Default STEAM_OPENID_ENDPOINT; responses must name exactly this endpoint. */
    openIdEndpoint?: string;
    /** The public API's origin with a trailing slash, e.g. `https://api.example.com/`; returnTo must lie under it. */
    realm: string;
    /** The public, absolute URL of GET /auth/steam/return (without query). */
    returnTo: string;
    seenNonces: SeenNonceStore;
    fetch?: typeof fetch;
    /** Host of the claimed ids (default steamcommunity.com): `https://<host>/openid/id/<17 digits>`, exactly. */
    claimedIdHost?: string;
    /** How old a response nonce may be (default 5 minutes). */
    nonceMaxAgeMs?: number;
    /** Time allowed to the check_authentication call (default 5 s). */
    checkTimeoutMs?: number;
  }>;

const PendingLogin = z.object({
  state: z.string(),
  returnTo: z.string(),
  createdAt: z.number(),
  linkUserId: z.number().int().positive().optional(),
});

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A line exactly `is_valid:true` in the key-value form body of check_authentication. */
const saysValid = (body: string): boolean => body.split('\n').some((line) => line.replace(/\r$/, '') === 'is_valid:true');

/** OpenID 2.0 sign-in verified field by field (generic libraries have let forged claimed ids through), then by check_authentication. */
export const steamRoutes = (deps: SteamDeps): Router => {
  const endpoint = deps.openIdEndpoint ?? STEAM_OPENID_ENDPOINT;
  const doFetch = deps.fetch ?? fetch;
  const now = deps.now ?? Date.now;
  const nonceMaxAgeMs = deps.nonceMaxAgeMs ?? 5 * 60_000;
  const claimedId = new RegExp(`^https://${escapeRegExp(deps.claimedIdHost ?? 'steamcommunity.com')}/openid/id/(\\d{17})$`);
  const returnToBase = new URL(deps.returnTo);
  if (!deps.returnTo.startsWith(deps.realm) || returnToBase.search !== '' || returnToBase.hash !== '') {
    throw new Error('steamRoutes: returnTo must lie under realm and carry no query or fragment');
  }
  const flow = loginFlow('steam', returnToBase.pathname, deps);
  const { refuse } = flow;

  /** The provider's own word on the assertion: every openid.* field echoed back with mode check_authentication. */
  const confirmedByProvider = async (params: URLSearchParams): Promise<boolean> => {
    const body = new URLSearchParams();
    for (const [key, value] of params) if (key.startsWith('openid.')) body.set(key, value);
    body.set('openid.mode', 'check_authentication');
    const response = await doFetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(deps.checkTimeoutMs ?? 5_000),
    });
    return response.ok && saysValid(await response.text());
  };

  /** Stores the pending login (with the linking user, if any) and sends the browser to the provider. */
  const begin = async (res: Response, linkUserId?: number): Promise<void> => {
    noStore(res);
    const state = randomBytes(32).toString('base64url');
    const returnTo = new URL(returnToBase);
    returnTo.searchParams.set('state', state);
    const pending = {
      state,
      returnTo: returnTo.href,
      createdAt: now(),
      ...(linkUserId === undefined ? {} : { linkUserId }),
    } satisfies z.infer<typeof PendingLogin>;
    await flow.start(res, pending);
    const url = new URL(endpoint);
    url.search = new URLSearchParams({
      'openid.ns': OPENID_NS,
      'openid.mode': 'checkid_setup',
      'openid.claimed_id': IDENTIFIER_SELECT,
      'openid.identity': IDENTIFIER_SELECT,
      'openid.return_to': pending.returnTo,
      'openid.realm': deps.realm,
    }).toString();
    res.redirect(302, url.href);
  };

  const router = Router();
  const route = documentedRoutes(router);

  route(
    'get',
    '/auth/steam',
    { kind: 'none' },
    {
      summary: 'Start a sign-in with the game platform (OpenID 2.0)',
      tag: 'identity-providers',
      responses: { 302: { description: 'Redirect to the game platform' } },
    },
    (_req, res) => begin(res),
  );

  route(
    'get',
    '/auth/steam/return',
    { kind: 'none' },
    {
      summary: "The game platform's return: verifies the assertion, signs in and sets the cookies",
      tag: 'identity-providers',
      responses: { 302: { description: 'Redirect to the site, signed in or with the refusal reason' } },
    },
    async (req, res, next) => {
      noStore(res);
      const requestUrl = new URL(req.originalUrl, returnToBase);
      const params = requestUrl.searchParams;
      if (new Set(params.keys()).size !== [...params.keys()].length) return refuse('repeated-parameter', res, next);
      const field = (name: string): string | undefined => params.get(`openid.${name}`) ?? undefined;

      const taken = await flow.take(req, PendingLogin);
      if ('refused' in taken) return refuse(taken.refused, res, next);
      const { pending } = taken;
      if (!sameSecret(params.get('state') ?? undefined, pending.state)) return refuse('state-mismatch', res, next);

      if (field('ns') !== OPENID_NS || field('mode') !== 'id_res') return refuse('not-a-positive-assertion', res, next);
      if (field('op_endpoint') !== endpoint) return refuse('op-endpoint-mismatch', res, next);
      if (field('return_to') !== pending.returnTo) return refuse('return-to-mismatch', res, next);
      // The URL this request arrived at must be that return_to: same path, and each of its query parameters.
      const sentTo = new URL(pending.returnTo);
      const arrivedAtIt =
        requestUrl.pathname === sentTo.pathname && [...sentTo.searchParams].every(([key, value]) => params.get(key) === value);
      if (!arrivedAtIt) return refuse('request-url-mismatch', res, next);

      const claimed = field('claimed_id');
      const steamId = claimed === undefined ? undefined : claimedId.exec(claimed)?.[1];
      if (steamId === undefined || field('identity') !== claimed) return refuse('claimed-id-invalid', res, next);

      const signed = new Set((field('signed') ?? '').split(','));
      if (!MUST_BE_SIGNED.every((name) => signed.has(name) && field(name)) || !field('sig')) {
        return refuse('unsigned-fields', res, next);
      }

      const nonce = field('response_nonce') ?? '';
      const issuedAt = Date.parse(RESPONSE_NONCE.exec(nonce)?.[1] ?? '');
      if (Number.isNaN(issuedAt)) return refuse('nonce-malformed', res, next);
      if (now() - issuedAt > nonceMaxAgeMs || issuedAt - now() > CLOCK_SKEW_MS) return refuse('nonce-stale', res, next);
      // Remembered for as long as the nonce could still pass the age check above.
      if (!(await deps.seenNonces.firstSighting(`steam:${endpoint}:${nonce}`, nonceMaxAgeMs + CLOCK_SKEW_MS))) {
        return refuse('nonce-replayed', res, next);
      }

      let valid: boolean;
      try {
        valid = await confirmedByProvider(params);
      } catch (error) {
        return refuse('check-authentication-failed', res, next, error);
      }
      if (!valid) return refuse('check-authentication-refused', res, next);

      await flow.signIn({ provider: 'steam', subject: steamId }, req, res, pending.linkUserId);
    },
  );

  if (deps.session) {
    route(
      'get',
      '/auth/steam/link',
      { kind: 'auth' },
      {
        summary: "Link a Steam account to the signed-in user's account (a session, not an API key)",
        tag: 'identity-providers',
        addition: true,
        responses: { 302: { description: 'Redirect to the game platform; its return links and goes to /account' } },
      },
      deps.session,
      (req, res) => begin(res, req.auth!.userId),
    );
  }

  return router;
};
