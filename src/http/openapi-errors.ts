import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import type { Access, HttpMethod, RouteDocs } from './access.js';
import { z } from './validate.js';

/** The one error body every API answers (http-errors.ts): declared on every error status of every operation. */
export const ErrorBody = z
  .object({
    statusCode: z.number().int(),
    code: z.string().openapi({ description: 'Stable machine-readable code; the codes an answer may carry are listed in its description.' }),
    message: z.string(),
    details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
    requestId: z.string().optional().openapi({ description: 'On 500 answers: the id to quote (also in x-request-id).' }),
  })
  .openapi('Error');

export type Audience = 'staff' | 'public' | 'service';

/** Codes a route answers beyond the generic ones, by status (409 and 422 codes, a 404 naming what was not found...). */
export type DeclaredErrors = Readonly<Partial<Record<number, readonly string[]>>>;

const MEANING: Readonly<Record<number, string>> = {
  400: 'The request is invalid',
  401: 'Not authenticated',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflicts with the current state',
  413: 'The request body is too large',
  422: 'Cannot be processed as sent',
  429: 'Too many requests; retry after Retry-After seconds',
  500: 'Unexpected server error (a bug): quote requestId',
  503: 'A dependency (database, event store, cache) is unavailable; retry after Retry-After seconds',
};

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
} as const;

/** Methods whose requests carry a JSON body: a malformed one is 400 INVALID_JSON, an oversized one 413. */
const withBody = (method: HttpMethod): boolean => method !== 'get';

/**
 * Every error status a route can answer, derived from how it is registered: 400 always (the input policy checks every
 * path and query, the routes their parameters), 401 and 403 from its access, 404 for a path with parameters, 413 for a
 * body, 500 and 503 always; plus the codes the route declares (`errors`) and the error statuses its `responses` name.
 */
export const errorStatuses = (
  method: HttpMethod,
  path: string,
  rule: Access,
  docs: RouteDocs,
  audience: Audience,
): Map<number, Set<string>> => {
  const codes = new Map<number, Set<string>>();
  const add = (status: number, ...names: string[]): void => {
    const set = codes.get(status) ?? new Set<string>();
    for (const name of names) set.add(name);
    codes.set(status, set);
  };
  add(400, 'VALIDATION_FAILED');
  if (withBody(method)) add(400, 'INVALID_JSON', 'UNSTORABLE_VALUE');
  if (rule.kind !== 'none') {
    add(401, 'UNAUTHORIZED');
    if (audience !== 'service') add(403, 'FORBIDDEN');
  }
  if (audience === 'staff' && rule.kind !== 'none') add(403, 'USER_BANNED');
  if (/:[A-Za-z0-9_]+/.test(path)) add(404, 'NOT_FOUND');
  if (withBody(method)) add(413, 'PAYLOAD_TOO_LARGE');
  add(500, 'INTERNAL_ERROR');
  add(503, 'SERVICE_UNAVAILABLE', 'EVENT_STORE_UNAVAILABLE');
  for (const status of Object.keys(docs.responses).map(Number)) if (status >= 400) add(status);
  for (const [status, names] of Object.entries(docs.errors ?? {})) add(Number(status), ...(names ?? []));
  return codes;
};

/** The OpenAPI response of one error status: the one error body, the codes in the description, Retry-After where sent. */
export const errorResponse = (status: number, codes: ReadonlySet<string>, declared?: string): ResponseConfig => {
  const listed = [...codes].sort();
  const description = [declared ?? MEANING[status] ?? 'Error', listed.length ? `Codes: ${listed.map((c) => `\`${c}\``).join(', ')}.` : '']
    .filter(Boolean)
    .join('. ');
  return {
    description,
    ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
    content: { 'application/json': { schema: ErrorBody } },
  } as ResponseConfig;
};
