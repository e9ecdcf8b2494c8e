import { OpenApiGeneratorV31, OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import express, { Router, type RequestHandler } from 'express';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Access, HttpMethod, RouteDocs } from './access.js';
import { errorResponse, errorStatuses, type Audience } from './openapi-errors.js';
import { CONSISTENCY_QUERY, LEDGER_POSITION_HEADER, POSITION_QUERY, READ_CONSISTENCY_HEADER } from './ledger-position.js';

export type DocumentedRoute = Readonly<{ method: HttpMethod; path: string; access: Access; docs?: RouteDocs }>;
type Security = 'bearer' | 'cookie' | 'legacyCookie' | 'serviceToken';

export type DocumentInfo = Readonly<{
  title: string;
  version: string;
  description: string;
  serverUrl: string;
  serverDescription: string;
  audience: Audience;
}>;

export const openApiPath = (expressPath: string): string => expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const SECURITY_SCHEMES = {
  bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token in the Authorization header.' },
  cookie: { type: 'apiKey', in: 'cookie', name: 'access_token', description: 'Access token cookie (canonical).' },
  legacyCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'jwt_access_token',
    description: 'Deprecated: legacy alias of the access_token cookie, kept for migration; use access_token.',
  },
  serviceToken: {
    type: 'apiKey',
    in: 'header',
    name: 'x-service-token',
    description: 'The shared INTERNAL_API_TOKEN of game servers and payment providers (compared in constant time).',
  },
} as const;

/** The legacy cookie is accepted by the back office only. */
const SCHEMES: Readonly<Record<Audience, readonly Security[]>> = {
  staff: ['bearer', 'cookie', 'legacyCookie'],
  public: ['bearer', 'cookie'],
  service: ['serviceToken'],
};
const schemesOf = (audience: Audience): readonly Security[] => SCHEMES[audience];

const byQueryNote = (rule: Access): string =>
  rule.kind !== 'by-query'
    ? ''
    : `Access by \`${rule.param}\`: ${Object.entries(rule.rules)
        .map(([value, r]) => `${value}: ${r.kind === 'perm' ? `permission \`${r.permission}\`` : 'SuperAdmin only'}`)
        .join('; ')} (SuperAdmin holds every permission).`;

const accessNote = (rule: Access, audience: DocumentInfo['audience']): string =>
  ({
    none: 'Access: none.',
    auth: {
      staff: 'Access: any authenticated Admin or SuperAdmin.',
      public: 'Access: a signed-in user.',
      service: 'Access: the service token (x-service-token).',
    }[audience],
    perm: `Access: Admin with permission \`${rule.kind === 'perm' ? rule.permission : ''}\` (SuperAdmin holds all).`,
    superadmin: 'Access: SuperAdmin only.',
    'by-query': byQueryNote(rule),
  })[rule.kind];

const tagOf = (route: DocumentedRoute): string => route.docs?.tag ?? route.path.split('/')[1] ?? 'default';

const operationOf = (route: DocumentedRoute, docs: RouteDocs, audience: DocumentInfo['audience']): RouteConfig => {
  const { params, query, body, headers } = docs.request ?? {};
  const security = route.access.kind === 'none' ? [] : schemesOf(audience).map((name) => ({ [name]: [] }));
  return {
    method: route.method,
    path: openApiPath(route.path),
    operationId: `${route.method}${openApiPath(route.path)
      .replace(/[{}]/g, '')
      .replace(/[^A-Za-z0-9]+(.)?/g, (_m, c?: string) => (c ?? '').toUpperCase())}`,
    summary: docs.summary,
    description: [docs.description, accessNote(route.access, audience)].filter(Boolean).join('\n\n'),
    tags: [tagOf(route)],
    security,
    ...(docs.deprecated ? { deprecated: true } : {}),
    ...(docs.addition ? { 'x-addition': true } : {}),
    request: {
      ...(params ? { params } : {}),
      ...(query ? { query } : {}),
      ...(headers ? { headers } : {}),
      ...(body ? { body: { required: true, content: { [docs.bodyType ?? 'application/json']: { schema: body } } } } : {}),
    },
    responses: {
      ...Object.fromEntries(
        Object.entries(docs.responses).map(([status, r]) => [
          status,
          {
            description: r.description,
            ...(r.schema ? { content: { 'application/json': { schema: r.schema } } } : {}),
          },
        ]),
      ),
      // Express answers a GET whose If-None-Match names the current ETag with 304 and no body (browsers send it).
      ...(route.method === 'get' ? { 304: { description: 'Not modified: If-None-Match named the current ETag' } } : {}),
      ...Object.fromEntries(
        [...errorStatuses(route.method, route.path, route.access, docs, audience)]
          .filter(([status]) => !docs.responses[status]?.schema)
          .map(([status, codes]) => [status, errorResponse(status, codes, docs.responses[status]?.description)]),
      ),
    },
  };
};

/** The OpenAPI 3.1 document of the documented routes (undocumented ones are left out; the test finds them). */
export const openApiDocument = (routes: readonly DocumentedRoute[], info: DocumentInfo): Record<string, unknown> => {
  const registry = new OpenAPIRegistry();
  for (const name of schemesOf(info.audience)) registry.registerComponent('securitySchemes', name, SECURITY_SCHEMES[name]);
  for (const route of routes) if (route.docs) registry.registerPath(operationOf(route, route.docs, info.audience));
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: info.serverUrl, description: info.serverDescription }],
  });
  for (const route of routes)
    if (route.docs) documentPositions(document.paths?.[openApiPath(route.path)]?.[route.method], route.method, route.docs);
  return document as unknown as Record<string, unknown>;
};

type Operation = { parameters?: unknown[]; responses?: Record<string, { headers?: Record<string, unknown> }> };

const POSITION_SCHEMA = { type: 'string', pattern: '^\\d+/\\d+$', example: '1234/5678' };

/** The ledger position headers: on every command answer, and the parameters and answer headers of a consistent read. */
const documentPositions = (op: Operation | undefined, method: HttpMethod, docs: RouteDocs): void => {
  if (!op) return;
  const answered: Record<string, unknown> = {};
  if (method !== 'get') {
    answered[LEDGER_POSITION_HEADER] = {
      description: 'The ledger position this command reached (at least its own events): pass it to a read to see this write.',
      schema: POSITION_SCHEMA,
    };
  }
  if (docs.readModels) {
    answered[LEDGER_POSITION_HEADER] = {
      description: `The ledger position this answer reflects (read models: ${docs.readModels.join(', ')}).`,
      schema: POSITION_SCHEMA,
    };
    answered[READ_CONSISTENCY_HEADER] = {
      description:
        '`consistent`: every command acknowledged before the request is in it; `stale`: the wait bound was hit; `none`: opted out.',
      schema: { type: 'string', enum: ['consistent', 'stale', 'none'] },
    };
    op.parameters = [
      ...(op.parameters ?? []),
      {
        in: 'header',
        name: LEDGER_POSITION_HEADER,
        required: false,
        schema: POSITION_SCHEMA,
        description: 'Wait until the answer reflects this position (from a command answer) instead of the head at arrival.',
      },
      {
        in: 'query',
        name: POSITION_QUERY,
        required: false,
        schema: POSITION_SCHEMA,
        description: `Same as the ${LEDGER_POSITION_HEADER} header.`,
      },
      {
        in: 'header',
        name: READ_CONSISTENCY_HEADER,
        required: false,
        schema: { type: 'string', enum: ['consistent', 'none'] },
        description: '`none`: answer at once from the read models as they are (dashboards).',
      },
      {
        in: 'query',
        name: CONSISTENCY_QUERY,
        required: false,
        schema: { type: 'string', enum: ['consistent', 'none'] },
        description: `Same as the ${READ_CONSISTENCY_HEADER} header.`,
      },
    ];
  }
  if (Object.keys(answered).length === 0) return;
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (Number(status) < 500) response.headers = { ...response.headers, ...answered };
  }
};

const documented = new WeakMap<Router, DocumentedRoute[]>();

export const routeDocsOf = (router: Router): readonly DocumentedRoute[] => documented.get(router) ?? [];

/** Like guardedRoutes for routers that do their own authentication: declares a route with its documentation. */
export const documentedRoutes = (router: Router) => {
  const list: DocumentedRoute[] = [];
  documented.set(router, list);
  return (method: HttpMethod, path: string, rule: Access, docs: RouteDocs, ...handlers: RequestHandler[]): void => {
    list.push({ method, path, access: rule, docs });
    router[method](path, ...handlers);
  };
};

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** A document the interactive page offers besides the app's own (the internal ledger API's). */
export type OtherDocument = Readonly<{ name: string; url: string }>;

const page = (title: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script></body></html>`;

const init = (title: string, others: readonly OtherDocument[]): string =>
  others.length === 0
    ? "window.ui = SwaggerUIBundle({ url: '/docs/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n"
    : `window.ui = SwaggerUIBundle(${JSON.stringify({
        urls: [{ name: title, url: '/docs/openapi.json' }, ...others],
        dom_id: '#swagger-ui',
        deepLinking: true,
      }).slice(0, -1)}, presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });\n`;

/** Builds a document once, on first use. */
export const once = (build: () => Record<string, unknown>): (() => Record<string, unknown>) => {
  let document: Record<string, unknown> | undefined;
  return () => (document ??= build());
};

/** The documents an app serves, by the URL each is served at: what a conformance check validates its answers against. */
export type ServedDocuments = Readonly<Record<string, () => Record<string, unknown>>>;
export const SERVED_DOCUMENTS = 'openApiDocuments';

/** `/docs/openapi.json` and the interactive page at `/docs` (with a selector for `others`); documents built on first request. */
export const docsRoutes = (build: () => Record<string, unknown>, title: string, others: readonly OtherDocument[] = []): Router => {
  const router = Router();
  const document = once(build);
  router.get('/docs/openapi.json', (_req, res) => {
    res.json(document());
  });
  const script = init(title, others);
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(script);
  });
  router.use('/docs/assets', express.static(swaggerUiDir, { index: false }));
  router.get(['/docs', '/docs/'], (_req, res) => {
    res.type('html').send(page(title));
  });
  return router;
};
