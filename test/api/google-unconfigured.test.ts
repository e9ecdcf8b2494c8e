import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleRoutes, googleUnconfiguredRoutes } from '../../src/http/identity-providers/google.js';
import { createMemoryLoginStateStore } from '../../src/http/identity-providers/login-state.js';
import { createPublicApp } from '../../src/http/public-app.js';
import { createLogger } from '../../src/infra/logger.js';
import { call, createAuthEnv, type AuthEnv } from '../support/auth-env.js';

let env: AuthEnv;
const servers: Server[] = [];
const serve = (routers: Parameters<typeof createPublicApp>[0]['routers']): Promise<string> => {
  const app = createPublicApp({ logger: createLogger({ level: 'silent' }), pool: env.pool, store: env.store, routers });
  return new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`));
    servers.push(s);
  });
};

beforeAll(async () => {
  env = await createAuthEnv('google_unconfigured');
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await env?.close();
});

describe('GET /auth/google and /auth/google/callback on a server without a Google client', () => {
  it('when they are called, then they answer 503 IDENTITY_PROVIDER_NOT_CONFIGURED, not a bare 404', async () => {
    const base = await serve([googleUnconfiguredRoutes()]);
    for (const path of ['/auth/google', '/auth/google/callback?code=x&state=y']) {
      const reply = await call(base, 'GET', path);
      expect([path, reply.status, reply.body.code]).toEqual([path, 503, 'IDENTITY_PROVIDER_NOT_CONFIGURED']);
    }
  });

  it('when the public document is read, then both operations are in it, documented as on a configured server', async () => {
    const unconfigured = (await call(await serve([googleUnconfiguredRoutes()]), 'GET', '/docs/openapi.json')).body;
    const configured = (
      await call(
        await serve([
          googleRoutes({
            issuerUrl: 'http://idp.test',
            clientId: 'c',
            clientSecret: 's',
            redirectUri: 'http://x.test/auth/google/callback',
            stateStore: createMemoryLoginStateStore(),
            onIdentity: async () => undefined,
          }),
        ]),
        'GET',
        '/docs/openapi.json',
      )
    ).body;
    for (const path of ['/auth/google', '/auth/google/callback']) {
      expect(unconfigured.paths[path]?.get).toBeDefined();
      expect(unconfigured.paths[path].get).toEqual(configured.paths[path].get);
    }
  });
});
