import type { RouteDocs } from './access.js';
import type { DocumentInfo } from './openapi.js';
import { HealthResult } from './openapi.schemas.js';
import { z } from './validate.js';

/** What the two OpenAPI documents say about themselves (spec, Versioning: the back office declares 1.0). */
export const BACK_OFFICE_INFO: DocumentInfo = {
  title: 'Back-office API',
  version: '1.0',
  description:
    "The back-office administrative REST service. Operations marked `x-addition` are not in the platform spec's Endpoints table.",
  serverUrl: '/',
  serverDescription: 'This server ({base_url})',
  audience: 'staff',
};

export const PUBLIC_INFO: DocumentInfo = {
  title: 'Public API: authentication lifecycle',
  version: '1.0',
  description:
    'Sign-up, sign-in, two-factor authentication, session refresh and log-out, ' +
    'the signed-in account and the identity-provider redirect flows.',
  serverUrl: '/',
  serverDescription: 'This server ({public_base_url})',
  audience: 'public',
};

export const INTERNAL_INFO: DocumentInfo = {
  title: 'Internal ledger API',
  version: '1.0',
  description: [
    'The ledger commands of game servers and payment providers, under `/internal` on the back-office port, each call with ',
    'the `x-service-token` header (`INTERNAL_API_TOKEN`; 401 `UNAUTHORIZED` without it).\n\n',
    'Idempotency: every command is idempotent on its natural key (a deposit on providerId + externalId, a bet on its id, ',
    'an affiliate claim on claimId, a withdrawal request on its optional `Idempotency-Key` header, a state change on its ',
    'entity and step). A repeat with the same terms answers 200 with the first result and records nothing; the same key ',
    "with other terms is 422 `IDEMPOTENCY_KEY_REUSED`; a step the entity's status does not allow is 409 `*_INVALID_STATE`. ",
    'A 503 is safe to retry with the same key after `Retry-After` seconds.\n\n',
    'Errors: every error answer is `{statusCode, code, message, details?}`; each operation lists the statuses and codes it answers.',
  ].join(''),
  serverUrl: '/',
  serverDescription: 'The back-office server ({base_url})',
  audience: 'service',
};

export const HEALTH_DOCS: RouteDocs = {
  summary: 'Health of the service and its dependencies',
  responses: {
    200: { description: 'Every dependency is up: status ok', schema: HealthResult },
    503: { description: 'A dependency is down: status error, the failing checks under error', schema: HealthResult },
  },
};

/** Read by the captcha check (not by a zod schema of the route); documented for clients. */
export const CaptchaHeaders = z.object({ 'x-captcha-token': z.string().min(1) });
export const PublicUser = z.looseObject({ id: z.number().int(), username: z.string().nullable() }).openapi('PublicUser');
export const UserResponse = z.object({ user: PublicUser }).openapi('UserResponse');
export const SessionResponse = z.object({ user: PublicUser, accessToken: z.string(), refreshToken: z.string() }).openapi('SessionResponse');
export const SignInResponse = z
  .object({ user: PublicUser, mfaRequired: z.boolean().optional(), mfaToken: z.string().optional() })
  .openapi('SignInResponse');
