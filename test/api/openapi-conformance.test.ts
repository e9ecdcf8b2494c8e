import { Validator } from '@seriousme/openapi-schema-validator';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminApp } from '../../src/http/admin-app.js';
import { SERVED_DOCUMENTS } from '../../src/http/openapi.js';
import { createLogger } from '../../src/infra/logger.js';
import { createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { takeViolations } from '../support/openapi-conformance.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const TOKEN = 'conformance-service-token';

let env: AuthEnv;
const servers: Server[] = [];
const serve = async (app: express.Express): Promise<string> => {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  env = await createAuthEnv('openapi_conformance');
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await env?.close();
});

/** A one-operation document: GET /thing answers 200 `{name: string}` (or the error body on 404). */
const THING = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/thing/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'string' } }],
        responses: {
          200: {
            description: 'ok',
            content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } },
          },
        },
      },
    },
  },
};

describe('the conformance recorder every test runs with', () => {
  it('when an app answers an undeclared status, a body unlike its schema, or from an undocumented route, then each is recorded', async () => {
    const app = express();
    app.locals[SERVED_DOCUMENTS] = { '/docs/openapi.json': () => THING };
    app.get('/thing/good', (_req, res) => void res.json({ name: 'a' }));
    app.get('/thing/bad-body', (_req, res) => void res.json({ label: 7 }));
    app.get('/thing/bad-status', (_req, res) => void res.status(409).json({ statusCode: 409, code: 'X', message: 'x' }));
    app.get('/other', (_req, res) => void res.json({}));
    const base = await serve(app);
    for (const path of ['/thing/good', '/thing/bad-body', '/thing/bad-status', '/other']) await fetch(`${base}${path}`);
    const { checked, violations } = await takeViolations();
    expect(checked).toBe(4);
    expect(violations.map((v) => [v.kind, v.request])).toEqual([
      ['body-mismatch', 'GET /thing/bad-body'],
      ['undeclared-status', 'GET /thing/bad-status'],
      ['undocumented-route', 'GET /other'],
    ]);
  });
});

describe('the three OpenAPI documents', () => {
  let documents: Record<string, Json>;
  beforeAll(async () => {
    const app = createAdminApp({
      logger: createLogger({ level: 'silent' }),
      pool: env.pool,
      store: env.store,
      ledger: env.ledger,
      auth: env.kit,
      internalApiToken: TOKEN,
    });
    const base = await serve(app);
    documents = {};
    for (const url of ['/docs/openapi.json', '/internal/openapi.json']) documents[url] = await (await fetch(`${base}${url}`)).json();
    const publicBase = await env.publicWith({});
    documents.public = await (await fetch(`${publicBase}/docs/openapi.json`)).json();
    const init = await (await fetch(`${base}/docs/init.js`)).text();
    expect(init).toContain('/internal/openapi.json');
  });

  it('when the internal document is read, then it describes every internal route behind the service token and is valid OpenAPI 3.1', async () => {
    const internal = documents['/internal/openapi.json'];
    const result = await new Validator().validate(structuredClone(internal));
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(internal.components.securitySchemes.serviceToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-service-token' });
    expect(Object.keys(internal.paths).sort()).toEqual(
      [
        '/internal/affiliate-claims',
        '/internal/bets',
        '/internal/bets/{id}/error',
        '/internal/bets/{id}/rollback',
        '/internal/bets/{id}/settle',
        '/internal/deposits',
        '/internal/deposits/{id}/complete',
        '/internal/deposits/{id}/confirm',
        '/internal/deposits/{id}/fail',
        '/internal/wallets/{userId}/balances',
        '/internal/withdrawals',
        '/internal/withdrawals/{id}/complete',
        '/internal/withdrawals/{id}/fail',
      ].sort(),
    );
    expect(internal.info.description).toMatch(/IDEMPOTENCY_KEY_REUSED/);
  });

  it('when any operation of the three is read, then it declares the error statuses its registration implies with the one error body', () => {
    const missing: string[] = [];
    for (const [name, doc] of Object.entries(documents)) {
      for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
        for (const method of METHODS.filter((m) => item[m])) {
          const op = item[method];
          const expected = path === '/health' ? [400, 500] : [400, 500, 503];
          if ((op.security ?? []).length > 0) expected.push(401);
          if (name === '/docs/openapi.json' && (op.security ?? []).length > 0) expected.push(403);
          if (path.includes('{')) expected.push(404);
          for (const status of expected) {
            const response = op.responses[status];
            if (response?.content?.['application/json']?.schema?.$ref !== '#/components/schemas/Error')
              missing.push(`${name} ${method} ${path} ${status}`);
          }
          const errorBody = op.responses[503]?.content?.['application/json']?.schema?.$ref === '#/components/schemas/Error';
          if (errorBody && !op.responses[503]?.headers?.['Retry-After']) missing.push(`${name} ${method} ${path} 503 Retry-After`);
          if (op.responses[429] && !op.responses[429].headers?.['Retry-After']) missing.push(`${name} ${method} ${path} 429 Retry-After`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('when a route declares its own codes, then they are listed on their status', () => {
    const internal = documents['/internal/openapi.json'];
    expect(internal.paths['/internal/bets'].post.responses[409].description).toMatch(/`INSUFFICIENT_FUNDS`/);
    expect(internal.paths['/internal/bets'].post.responses[422].description).toMatch(/`IDEMPOTENCY_KEY_REUSED`/);
    expect(documents['/docs/openapi.json'].paths['/withdraw/approve'].post.responses[409].description).toMatch(/WITHDRAWAL_INVALID_STATE/);
    expect(documents.public.paths['/auth/sign-in'].post.responses[429].description).toMatch(/TOO_MANY_REQUESTS/);
  });
});
