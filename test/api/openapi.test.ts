import { Validator } from '@seriousme/openapi-schema-validator';
import { readFile, writeFile } from 'node:fs/promises';
import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiPath } from '../../src/http/openapi.js';
import { createPublicApp } from '../../src/http/public-app.js';
import {
  createMemoryLoginStateStore,
  createMemorySeenNonceStore,
  googleRoutes,
  steamRoutes,
} from '../../src/http/identity-providers/index.js';
import { createLogger } from '../../src/infra/logger.js';
import { call, createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { parseEndpointsTable, type EndpointRow, type Field } from '../support/endpoints-table.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const TABLE = parseEndpointsTable(new URL('../fixtures/back-office-endpoints.md', import.meta.url).pathname);

let env: AuthEnv;
let backOffice: Json;
let publicDoc: Json;
let publicUrl: string;
let publicApp: Express;
let server: Server;

beforeAll(async () => {
  env = await createAuthEnv('openapi');
  // The public app as production wires it: auth, account and both identity-provider flows.
  const stateStore = createMemoryLoginStateStore();
  const onIdentity = async () => undefined;
  publicApp = createPublicApp({
    logger: createLogger({ level: 'silent' }),
    pool: env.pool,
    store: env.store,
    auth: { kit: env.kit, ledger: env.ledger },
    routers: [
      steamRoutes({
        realm: 'http://x.test/',
        returnTo: 'http://x.test/auth/steam/return',
        stateStore,
        seenNonces: createMemorySeenNonceStore(),
        onIdentity,
      }),
      googleRoutes({
        issuerUrl: 'http://idp.test',
        clientId: 'c',
        clientSecret: 's',
        redirectUri: 'http://x.test/auth/google/callback',
        stateStore,
        onIdentity,
      }),
    ],
  });
  server = await new Promise<Server>((resolve) => {
    const s = publicApp.listen(0, () => resolve(s));
  });
  publicUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  backOffice = (await call(env.adminUrl, 'GET', '/docs/openapi.json')).body;
  publicDoc = (await call(publicUrl, 'GET', '/docs/openapi.json')).body;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await env?.close();
});

const operations = (doc: Json): Array<{ key: string; op: Json }> =>
  Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ key: `${m} ${path}`, op: item[m] })),
  );

const deref = (doc: Json, schema: Json): Json => {
  if (schema?.$ref) return deref(doc, doc.components.schemas[(schema.$ref as string).split('/').pop()!]);
  if (schema?.allOf?.length === 1) return deref(doc, schema.allOf[0]);
  return schema ?? {};
};
const enumOf = (doc: Json, schema: Json): string[] | undefined => {
  const s = deref(doc, schema);
  return s.enum ?? (s.anyOf as Json[] | undefined)?.map((x) => enumOf(doc, x)).find(Boolean);
};

/** The express routes an app registers (method and path), walking mounted routers. */
const expressRoutes = (app: Express): string[] => {
  const walk = (stack: Json[]): string[] =>
    stack.flatMap((layer) => {
      if (layer.route) {
        const paths: string[] = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        return Object.keys(layer.route.methods as Record<string, boolean>)
          .filter((m) => METHODS.includes(m))
          .flatMap((m) => paths.map((p) => `${m} ${openApiPath(p)}`));
      }
      return layer.handle?.stack ? walk(layer.handle.stack as Json[]) : [];
    });
  return walk((app as Json).router.stack as Json[]).filter((key) => !key.split(' ')[1]!.startsWith('/docs'));
};

describe('GET /docs/openapi.json', () => {
  it('when both documents are validated with an OpenAPI 3.1 validator, then they are valid', async () => {
    for (const doc of [backOffice, publicDoc]) {
      const result = await new Validator().validate(structuredClone(doc));
      expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
      expect(result.valid).toBe(true);
      expect(doc.openapi).toBe('3.1.0');
    }
  });

  it('when the back-office document is read, then it declares version 1.0, the security schemes and the deprecations', () => {
    expect(backOffice.info.version).toBe('1.0');
    expect(backOffice.servers.length).toBeGreaterThan(0);
    const schemes = backOffice.components.securitySchemes;
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.cookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'access_token' });
    expect(schemes.legacyCookie).toMatchObject({ in: 'cookie', name: 'jwt_access_token' });
    expect(schemes.legacyCookie.description).toMatch(/^Deprecated/);
    expect(Object.keys(publicDoc.components.securitySchemes).sort()).toEqual(['bearer', 'cookie']);
    expect(backOffice.components.schemas.UserStatsUsd.properties.totalLoss.deprecated).toBe(true);
    expect(backOffice.components.schemas.AdminStats.properties.totalLoss.deprecated).toBe(true);
    for (const { op } of operations(backOffice)) expect(op.tags?.length).toBe(1);
  });

  it('when the back-office registry is compared with the document, then every route is documented and every operation registered', () => {
    const registered = env.registry.map((r) => `${r.method} ${openApiPath(r.path)}`).sort();
    expect(env.registry.filter((r) => !r.docs).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(
      operations(backOffice)
        .map((o) => o.key)
        .sort(),
    ).toEqual(registered);
  });

  it("when the public app's routes are compared with the document, then every route is documented and every operation registered", () => {
    expect(
      operations(publicDoc)
        .map((o) => o.key)
        .sort(),
    ).toEqual([...new Set(expressRoutes(publicApp))].sort());
    expect(operations(publicDoc).map((o) => o.key)).toEqual(
      expect.arrayContaining([
        'post /auth/sign-up',
        'post /auth/sign-in',
        'post /auth/verify-2fa',
        'get /user/me',
        'post /auth/refresh',
        'delete /session/log-out/current',
        'get /auth/steam',
        'get /auth/steam/return',
        'get /auth/google',
        'get /auth/google/callback',
      ]),
    );
  });

  it('when the interactive page and its assets are requested, then both apps serve them', async () => {
    for (const base of [env.adminUrl, publicUrl]) {
      const page = await fetch(`${base}/docs`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('swagger-ui-bundle.js');
      expect((await fetch(`${base}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
      expect((await fetch(`${base}/docs/init.js`)).status).toBe(200);
    }
  });
});

describe("GET /docs/openapi.json against the spec's Endpoints table", () => {
  const byKey = (doc: Json) => new Map(operations(doc).map(({ key, op }) => [key, op]));
  const parameter = (op: Json, name: string, where?: string): Json =>
    ((op.parameters as Json[] | undefined) ?? []).find((p) => p.name === name && (!where || p.in === where));
  const bodySchema = (op: Json): Json => deref(backOffice, op.requestBody?.content?.['application/json']?.schema);

  it('when the table is parsed, then it has the 58 operations of the back office', () => {
    expect(TABLE).toHaveLength(58);
  });

  it('when the documented operations are compared with the table, then exactly its 58 are documented besides the marked additions', () => {
    const table = new Set(TABLE.map((r) => `${r.method} ${r.path}`));
    const ops = operations(backOffice);
    expect(
      ops
        .filter(({ key }) => !table.has(key))
        .filter(({ op }) => op['x-addition'] !== true)
        .map((o) => o.key),
    ).toEqual([]);
    expect(
      ops
        .filter(({ key }) => table.has(key))
        .filter(({ op }) => op['x-addition'] === true)
        .map((o) => o.key),
    ).toEqual([]);
    expect([...table].filter((key) => !ops.some((o) => o.key === key))).toEqual([]);
    expect(ops.filter(({ op }) => op['x-addition'] !== true)).toHaveLength(58);
  });

  const expectEnum = (row: EndpointRow, field: Field, actual: string[] | undefined) => {
    if (field.enum) expect(actual, `${row.method} ${row.path} ${field.name}`).toEqual(field.enum);
  };

  it.each(TABLE.map((row) => [`${row.method} ${row.path}`, row] as const))(
    'when %s is looked up, then its parameters, body fields, enums and status codes match the row',
    (key, row) => {
      const op = byKey(backOffice).get(key);
      expect(op, key).toBeDefined();
      for (const name of row.pathParams) expect(parameter(op, name, 'path'), `${key} path ${name}`).toMatchObject({ required: true });
      for (const field of row.query) {
        const p = parameter(op, field.name, 'query');
        expect(p, `${key} query ${field.name}`).toBeDefined();
        if (field.required) expect(p.required, `${key} query ${field.name} required`).toBe(true);
        expectEnum(row, field, enumOf(backOffice, p.schema));
      }
      for (const field of row.declared) {
        const p = parameter(op, field.name);
        expect(p, `${key} declared ${field.name}`).toMatchObject({ required: field.required });
        expectEnum(row, field, enumOf(backOffice, p.schema));
      }
      if (/\bbody\b/.test(row.request)) expect(op.requestBody, `${key} body`).toBeDefined();
      if (row.request.includes('same fields as the GET query')) {
        const getOp = byKey(backOffice).get(`get ${row.path}`);
        expect(Object.keys(bodySchema(op).properties).sort()).toEqual((getOp.parameters as Json[]).map((p) => p.name).sort());
      }
      for (const field of row.body ?? []) {
        const schema = bodySchema(op);
        expect(schema.properties?.[field.name], `${key} body ${field.name}`).toBeDefined();
        // "required ... default empty": a default the server fills in satisfies the row (OpenAPI has no required-with-default).
        const defaulted = field.hasDefault === true && schema.properties[field.name].default !== undefined;
        if (field.required && !defaulted) expect(schema.required ?? [], `${key} body ${field.name} required`).toContain(field.name);
        expectEnum(row, field, enumOf(backOffice, schema.properties[field.name]));
      }
      const documented = Object.keys(op.responses as Json).map(Number);
      expect(documented, key).toEqual(expect.arrayContaining(row.statuses));
      expect(documented.filter((s) => s < 300).sort(), `${key} success`).toEqual(row.statuses.filter((s) => s < 300).sort());
    },
  );
});

/** The document with every `description` and `summary` text left out: what callers' code depends on. */
const contractOf = (doc: Json): Json =>
  JSON.parse(
    JSON.stringify(doc, (key, value) => ((key === 'description' || key === 'summary') && typeof value === 'string' ? undefined : value)),
  );

describe('GET /docs/openapi.json against the published contract', () => {
  const SNAPSHOTS = new URL('../fixtures/openapi/', import.meta.url).pathname;
  it.each([
    ['back-office', () => backOffice],
    ['public', () => publicDoc],
  ] as const)(
    'when the %s document is generated, then apart from descriptions it is byte-identical to the published one',
    async (name, doc) => {
      const file = `${SNAPSHOTS}${name}.json`;
      const text = `${JSON.stringify(contractOf(doc()), null, 2)}\n`;
      // A deliberate contract change rewrites the file with OPENAPI_UPDATE=1 and shows up in review as its diff.
      if (process.env.OPENAPI_UPDATE === '1') await writeFile(file, text);
      expect(text).toBe(await readFile(file, 'utf8'));
    },
  );
});
