import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { createAdminApp } from '../../src/http/admin-app.js';
import type { HealthResult } from '../../src/http/health.routes.js';
import { createPublicApp } from '../../src/http/public-app.js';
import type { EventStore } from '../../src/infra/event-store/event-store.port.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { createLogger } from '../../src/infra/logger.js';
import { createPool } from '../../src/infra/pg.js';
import { closeRedis, createRedis, type Redis } from '../../src/infra/redis.js';
import { createTestDb, type TestDb } from '../support/db.js';

const logger = createLogger({ level: 'silent' });
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let db: TestDb;
let store: EventStore;
const servers: Server[] = [];
const redisClients: Redis[] = [];

const serve = async (app: Express): Promise<string> => {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const health = async (base: string): Promise<{ status: number; body: HealthResult }> => {
  const res = await fetch(`${base}/health`);
  return { status: res.status, body: (await res.json()) as HealthResult };
};
const redis = (url: string): Redis => {
  const client = createRedis(url, logger);
  redisClients.push(client);
  return client;
};

beforeAll(async () => {
  db = await createTestDb('health');
  store = createPostgresEventStore({ pool: db.pool() });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await Promise.all(redisClients.map(closeRedis));
  await store.close();
  await db.drop();
});

describe('GET /health', () => {
  it('when every dependency answers, then 200 with status ok and each check up', async () => {
    const pool = db.pool();
    const base = await serve(createAdminApp({ logger, pool, store, ledger: createLedger({ store, pool }), redis: redis(REDIS_URL) }));
    const reply = await health(base);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      status: 'ok',
      info: { database: { status: 'up' }, eventStore: { status: 'up' }, redis: { status: 'up' } },
      error: {},
      details: { database: { status: 'up' }, eventStore: { status: 'up' }, redis: { status: 'up' } },
    });
  });

  it('when Redis is not configured, then no redis check is reported (public app too)', async () => {
    const reply = await health(await serve(createPublicApp({ logger, pool: db.pool(), store })));
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body.details)).toEqual(['database', 'eventStore']);
  });

  it('when the database is down, then 503 with status error and the failing checks under error as down with a message', async () => {
    // Nothing listens on port 1: every connection is refused.
    const deadPool = createPool({ connectionString: 'postgres://postgres@127.0.0.1:1/none' });
    deadPool.on('error', () => undefined);
    const deadStore = createPostgresEventStore({ pool: deadPool });
    try {
      const base = await serve(
        createAdminApp({ logger, pool: deadPool, store: deadStore, ledger: createLedger({ store: deadStore, pool: deadPool }) }),
      );
      const reply = await health(base);
      expect(reply.status).toBe(503);
      expect(reply.body.status).toBe('error');
      expect(reply.body.error.database).toMatchObject({ status: 'down', message: expect.any(String) });
      expect(reply.body.error.eventStore).toMatchObject({ status: 'down' });
      expect(reply.body.info).toEqual({});
      expect(reply.body.details.database?.status).toBe('down');
    } finally {
      await deadStore.close().catch(() => undefined);
      await deadPool.end().catch(() => undefined);
    }
  });

  it('when Redis is down, then 503 with only redis under error and the database still under info', async () => {
    const base = await serve(createPublicApp({ logger, pool: db.pool(), store, redis: redis('redis://127.0.0.1:1') }));
    const reply = await health(base);
    expect(reply.status).toBe(503);
    expect(reply.body.error).toEqual({ redis: { status: 'down', message: expect.any(String) } });
    expect(reply.body.info).toEqual({ database: { status: 'up' }, eventStore: { status: 'up' } });
  });

  it('when a check hangs, then it is reported down after the timeout', async () => {
    const hanging = { ...store, ping: () => new Promise<void>(() => undefined) } as EventStore;
    const base = await serve(createPublicApp({ logger, pool: db.pool(), store: hanging, healthTimeoutMs: 100 }));
    const started = Date.now();
    const reply = await health(base);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(reply.status).toBe(503);
    expect(reply.body.error.eventStore).toEqual({ status: 'down', message: 'timed out after 100 ms' });
  });
});
