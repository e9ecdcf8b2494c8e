import type { IncomingMessage, ServerResponse } from 'node:http';
import bytes from 'bytes';
import etag from 'etag';
import type { Express } from 'express';
import { validationFailed } from '../commands/errors.js';
import type { EventStore } from '../infra/event-store/event-store.port.js';
import { isTracked } from '../infra/event-store/append-tracker.js';
import { unredacted, type Logger } from '../infra/logger.js';
import { inspectInput } from '../shared/input-policy.js';
import { beginRequest, errorAnswer, HttpError } from './http-errors.js';
import { dataHeaderList } from './security-headers.js';
import { LEDGER_POSITION_HEADER, ledgerPositionOf } from './ledger-position.js';
import { serviceTokenCheck, type InternalRoute } from './internal.routes.js';

export type LeanPathDeps = Readonly<{
  routes: readonly InternalRoute[];
  mount: string;
  serviceToken: string;
  logger: Logger;
  store: EventStore;
  bodyLimit?: string | undefined;
  /** Strict-Transport-Security, as the express apps send it (outside local development). */
  hsts?: boolean | undefined;
}>;

/** A request node hands over, and whether the lean path took it (false: express answers it, not a byte of its body read). */
export type LeanPath = (req: IncomingMessage, res: ServerResponse) => boolean;

const JSON_UTF8 = /^application\/json\s*(?:;\s*charset\s*=\s*(?:utf-8|"utf-8")\s*)?$/i;
const LENGTH = /^\d{1,9}$/;
const PARAM = /^[\w-]{1,128}$/;
const FIRST_NON_WHITESPACE = /^[ \t\n\r]*(.|$)/s;

type Compiled = Readonly<{ route: InternalRoute; segments: readonly string[] }>;

const match = (table: readonly Compiled[], path: string): { route: InternalRoute; params: Record<string, string> } | undefined => {
  const given = path.split('/');
  for (const { route, segments } of table) {
    if (segments.length !== given.length) continue;
    const params: Record<string, string> = {};
    let same = true;
    for (let i = 0; i < segments.length && same; i++) {
      const want = segments[i]!;
      if (want.startsWith(':')) {
        if (PARAM.test(given[i]!)) params[want.slice(1)] = given[i]!;
        else same = false;
      } else same = want === given[i];
    }
    if (same) return { route, params };
  }
  return undefined;
};

const NOT_JSON = Symbol('not JSON');
const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
};

/** What express's JSON parser (strict) makes of the same bytes: a BOM dropped, only an object or array, else 400 INVALID_JSON. */
const parseJson = (raw: Buffer): unknown => {
  const text = raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? raw.toString('utf8', 3) : raw.toString('utf8');
  const first = FIRST_NON_WHITESPACE.exec(text)![1];
  const value = first === '{' || first === '[' ? parsed(text) : NOT_JSON;
  if (value === NOT_JSON) throw new HttpError(400, 'INVALID_JSON', 'Request body is not valid JSON');
  return value;
};

const send = (res: ServerResponse, statusCode: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void => {
  const json = Buffer.from(JSON.stringify(body), 'utf8');
  res.statusCode = statusCode;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', json.length);
  res.setHeader('ETag', etag(json, { weak: true }));
  res.end(json);
};

/** The internal API's POST commands without express (docs/architecture.md): taken when the headers say everything, answered alike. */
export const leanInternalPath = (deps: LeanPathDeps): LeanPath => {
  const table: readonly Compiled[] = deps.routes
    .filter((r) => r.method === 'post')
    .map((route) => ({ route, segments: `${deps.mount}${route.path}`.split('/') }));
  const tokenMatches = serviceTokenCheck(deps.serviceToken);
  const limit = bytes.parse(deps.bodyLimit ?? '100kb') ?? 102_400;
  const access = unredacted(deps.logger);
  const securityHeaders = dataHeaderList({ hsts: deps.hsts ?? false });
  const store = deps.store;
  const tracked = isTracked(store) ? store : undefined;

  return (req, res) => {
    const url = req.url ?? '';
    const length = req.headers['content-length'];
    if (
      req.method !== 'POST' ||
      !url.startsWith(deps.mount) ||
      url.includes('?') ||
      length === undefined ||
      !LENGTH.test(length) ||
      Number(length) === 0 ||
      Number(length) > limit ||
      req.headers['transfer-encoding'] !== undefined ||
      req.headers['content-encoding'] !== undefined ||
      !JSON_UTF8.test(req.headers['content-type'] ?? '')
    ) {
      return false;
    }
    const found = match(table, url);
    const token = req.headers['x-service-token'];
    if (!found || !tokenMatches(typeof token === 'string' ? token : undefined)) return false;

    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    const context = beginRequest(deps.logger, access, req, res);
    const answer = (statusCode: number, body: unknown, headers?: Readonly<Record<string, string>>): void => {
      const position = tracked ? ledgerPositionOf(tracked, statusCode) : undefined;
      send(res, statusCode, body, position === undefined ? headers : { ...headers, [LEDGER_POSITION_HEADER]: position });
    };
    const fail = (error: unknown): void => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const e = errorAnswer(error, context, req.method, url);
      answer(e.statusCode, e.body, e.headers);
    };
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: unknown;
      try {
        body = parseJson(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
        const problem = inspectInput(body, 'body');
        if (problem) throw validationFailed([problem]);
      } catch (error) {
        fail(error);
        return;
      }
      found.route
        .handle({ headers: req.headers, params: found.params, body })
        .then(({ status, body: out }) => answer(status, out))
        .catch(fail)
        .catch(() => res.destroy());
    });
    return true;
  };
};

/** Puts the lean path in front of an express app's own dispatch, wherever the app is served (`listen`, a test's server). */
export const inFrontOf = (app: Express, lean: LeanPath): void => {
  const dispatch = app as unknown as { handle: (req: IncomingMessage, res: ServerResponse, next?: unknown) => void };
  const handle = dispatch.handle.bind(app);
  dispatch.handle = (req, res, next) => {
    if (!lean(req, res)) handle(req, res, next);
  };
};
