import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import ajvFormats from 'ajv-formats';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import { SERVED_DOCUMENTS, type ServedDocuments } from '../../src/http/openapi.js';

/**
 * Every answer of an app served in a test checked by an independent validator (openapi-backend, ajv underneath) against
 * the OpenAPI documents the app serves (`app.locals.openApiDocuments`): its status declared by the operation, its JSON
 * body valid against the declared schema, its route documented. Installed by test/support/openapi-conformance.setup.ts.
 */
export type Violation = Readonly<{ kind: 'undeclared-status' | 'body-mismatch' | 'undocumented-route'; request: string; detail: string }>;

/**
 * Paths an app serves that no API document describes: the documents and their viewer; the console (`/admin`: its files,
 * its session and config, its sign-in that re-mounts the public API's documented auth routes) and its favicon;
 * Prometheus text; test-only routes.
 */
const NOT_AN_API = [/^\/docs(\/|$)/, /^\/internal\/openapi\.json$/, /^\/admin(\/|$)/, /^\/favicon\.ico$/, /^\/metrics$/, /^\/test\//];

type Validator = Readonly<{ api: OpenAPIBackend; document: Record<string, unknown> }>;
const validators = new WeakMap<() => Record<string, unknown>, Promise<Validator>>();

const validatorOf = (build: () => Record<string, unknown>): Promise<Validator> => {
  let made = validators.get(build);
  if (!made) {
    const document = structuredClone(build());
    const api = new OpenAPIBackend({
      definition: document as never,
      quick: true,
      validate: true,
      strict: false,
      ajvOpts: { strict: false },
      customizeAjv: (ajv) => {
        ajvFormats.default(ajv);
        return ajv;
      },
    });
    made = api.init().then(() => ({ api, document }));
    validators.set(build, made);
  }
  return made;
};

const violations: Violation[] = [];
const pending = new Set<Promise<void>>();
let checked = 0;

/** Violations seen since the last call (and how many answers were checked), after every answer in flight is checked. */
export const takeViolations = async (): Promise<Readonly<{ checked: number; violations: Violation[] }>> => {
  while (pending.size > 0) await Promise.all([...pending]);
  const taken = { checked, violations: violations.splice(0) };
  checked = 0;
  return taken;
};

const parsedBody = (chunks: Buffer[], type: string | undefined): unknown => {
  const text = Buffer.concat(chunks).toString('utf8');
  if (!/json/.test(type ?? '')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

const matchIn = (v: Validator, req: IncomingMessage, path: string, query: string): Operation | undefined =>
  v.api.matchOperation({ method: req.method ?? 'GET', path, query, headers: req.headers as Record<string, string> }) ?? undefined;

/** Checks one finished answer against the app's documents. */
const check = async (app: Express, req: IncomingMessage, url: string, res: ServerResponse, chunks: Buffer[]): Promise<void> => {
  const served = app.locals[SERVED_DOCUMENTS] as ServedDocuments | undefined;
  if (!served) return;
  const [path = '/', query = ''] = url.split('?');
  if (NOT_AN_API.some((re) => re.test(path))) return;
  const request = `${req.method} ${path}`;
  const status = res.statusCode;
  const type = res.getHeader('content-type') as string | undefined;
  const body = parsedBody(chunks, type);
  // A path no route serves is the generic 404 (http-errors.ts notFound): nothing answered it, so nothing to document.
  const refusal = body as { code?: string; details?: Array<{ field?: string }> } | undefined;
  if (status === 404 && refusal?.code === 'NOT_FOUND') return;
  checked += 1;
  for (const build of Object.values(served)) {
    const v = await validatorOf(build);
    // An empty path segment (`/user//ban`) is a path parameter express hands to the route as '': the matcher wants a value.
    const op = matchIn(v, req, path, query) ?? matchIn(v, req, path.replace(/\/(?=\/|$)/g, '/-'), query);
    if (!op) continue;
    const declared = (op.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
    if (!declared[String(status)]) {
      violations.push({ kind: 'undeclared-status', request, detail: `${status} not declared (${Object.keys(declared).join(', ')})` });
      return;
    }
    if (req.method === 'HEAD' || !declared[String(status)]!.content?.['application/json'] || !/json/.test(type ?? '')) return;
    const result = v.api.validateResponse(body, op, status);
    if (!result.valid) {
      const detail = `${status}: ${JSON.stringify(result.errors).slice(0, 600)}; body ${JSON.stringify(body).slice(0, 300)}`;
      violations.push({ kind: 'body-mismatch', request, detail });
    }
    return;
  }
  // Refused before any route took it (the input policy on a path no route serves): no route answered, nothing to document.
  if ((req as { route?: unknown }).route === undefined && status === 400) return;
  violations.push({ kind: 'undocumented-route', request, detail: `answered ${status} by no documented operation` });
};

const observe = (app: Express, req: IncomingMessage, res: ServerResponse): void => {
  // As sent: routers rewrite req.url while they dispatch (a mount strips its prefix).
  const url = req.url ?? '/';
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding?: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    chunks.push(
      Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
    );
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return write(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return end(chunk, ...rest);
  }) as typeof res.end;
  res.once('finish', () => {
    const done = check(app, req, url, res, chunks)
      .catch((error: unknown) => {
        violations.push({ kind: 'body-mismatch', request: `${req.method} ${url}`, detail: `validator failed: ${String(error)}` });
      })
      .finally(() => pending.delete(done));
    pending.add(done);
  });
};

let installed = false;

/** Every express app served with `app.listen` (as the tests serve theirs) goes through the recorder. */
export const installConformanceRecorder = (): void => {
  if (installed) return;
  installed = true;
  const proto = express.application as unknown as { listen: (...args: unknown[]) => http.Server };
  proto.listen = function listen(this: Express, ...args: unknown[]): http.Server {
    const server = http.createServer((req, res) => {
      observe(this, req, res);
      this(req, res);
    });
    return server.listen(...(args as Parameters<http.Server['listen']>));
  };
};
