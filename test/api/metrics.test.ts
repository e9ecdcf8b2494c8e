import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { migrateLedger } from '../../src/commands/ledger.migration.js';
import type { AccessRegistry } from '../../src/http/access.js';
import { createAdminApp, createMetricsApp } from '../../src/http/admin-app.js';
import type { EventStore } from '../../src/infra/event-store/event-store.port.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { migrateEventStore } from '../../src/infra/event-store/postgres/postgres.migration.js';
import { createLogger } from '../../src/infra/logger.js';
import { createMetrics, instrumentStore, type Metrics } from '../../src/infra/metrics.js';
import { instrumentLedger } from '../../src/commands/ledger.metrics.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { startProjector, type Projector } from '../../src/projections/index.js';
import { projectionReadings } from '../../src/projections/projection-status.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { eventually } from '../support/eventually.js';
import { migrateNonCore } from '../../src/schema.js';
import { untilVisible } from '../support/audit-ledger.js';

const SERVICE_TOKEN = 'test-service-token-0123456789';
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const logger = createLogger({ level: 'silent' });

let db: TestDb;
let pool: pg.Pool;
let rawStore: EventStore;
let metrics: Metrics;
let projector: Projector | undefined;
let openUrl: string;
let guardedUrl: string;
const registry: AccessRegistry = [];
const servers: Server[] = [];

const serve = async (app: ReturnType<typeof createAdminApp | typeof createMetricsApp>): Promise<string> => {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const internal = async (path: string, body: unknown = {}): Promise<{ status: number; body: any }> => {
  const res = await fetch(`${openUrl}/internal${path}`, {
    method: 'POST',
    headers: { 'x-service-token': SERVICE_TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};

const scrape = async (
  base = openUrl,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string | null; text: string }> => {
  const res = await fetch(`${base}/metrics`, { headers });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};

/** Samples of the Prometheus text format: `name{labels}` -> value. */
const samples = (text: string): Map<string, number> =>
  new Map(
    text
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => {
        const i = l.lastIndexOf(' ');
        return [l.slice(0, i), Number(l.slice(i + 1))];
      }),
  );
const sumOf = (s: Map<string, number>, name: string): number =>
  [...s.entries()].filter(([k]) => k === name || k.startsWith(`${name}{`)).reduce((sum, [, v]) => sum + v, 0);

const eventCount = async (): Promise<number> => Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n);

let seq = 0;
const uid = (prefix: string) => `${prefix}-${Date.now()}-${++seq}`;
const GAME = { name: 'Dice', slug: 'dice', type: 'original', provider: { name: 'House' } };

beforeAll(async () => {
  db = await createTestDb('metrics_api');
  pool = db.pool();
  await migrateEventStore(pool);
  await migrateLedger(pool);
  await migrateNonCore(pool);
  rawStore = createPostgresEventStore({ pool, pollIntervalMs: 50 });
  // The composition main.ts is meant to use: one registry, the store and the ledger instrumented.
  metrics = createMetrics();
  const store = instrumentStore(rawStore, metrics);
  const ledger = instrumentLedger(createLedger({ store, pool }), metrics);
  metrics.watchProjections(() => projectionReadings({ pool, store, projections: allProjections }));
  openUrl = await serve(
    createAdminApp({ logger, pool, store, ledger, internalApiToken: SERVICE_TOKEN, metrics, accessRegistry: registry }),
  );
  guardedUrl = await serve(createAdminApp({ logger, pool, store, ledger, metrics, metricsToken: METRICS_TOKEN }));
});

afterAll(async () => {
  await projector?.stop();
  await Promise.all(
    servers.map(
      (s) =>
        new Promise((r) => {
          s.closeAllConnections();
          s.close(r);
        }),
    ),
  );
  await rawStore?.close();
  await db?.drop();
});

describe('GET /metrics', () => {
  it('when commands ran, then events appended equal events stored and the latency histogram counts each command by outcome', async () => {
    const before = samples((await scrape()).text);
    expect(sumOf(before, 'ledger_events_appended_total')).toBe(0);

    const userId = 501;
    const deposit = { externalId: uid('ext'), userId, providerId: 'PROVIDER_A', networkId: 'BTC', currencyId: 'BTC', amount: '2' };
    const created = await internal('/deposits', deposit);
    expect(created.status).toBe(201);
    expect((await internal('/deposits', deposit)).status).toBe(200); // the same deposit again: nothing appended
    expect((await internal(`/deposits/${created.body.id}/complete`, { txHash: '0xabc' })).status).toBe(200);
    const betId = uid('bet');
    expect(
      (
        await internal('/bets', {
          id: betId,
          userId,
          roundId: uid('round'),
          gameId: 7,
          gameIdentity: GAME,
          currencyId: 'BTC',
          amount: '0.5',
        })
      ).status,
    ).toBe(201);
    expect((await internal(`/bets/${betId}/settle`, { payout: '1' })).status).toBe(200);
    expect((await internal(`/bets/${uid('missing')}/settle`, { payout: '1' })).status).toBe(404); // rejected by the ledger

    const reply = await scrape();
    expect(reply.status).toBe(200);
    expect(reply.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const s = samples(reply.text);
    expect(sumOf(s, 'ledger_events_appended_total')).toBe(await eventCount());
    expect(s.get('ledger_events_appended_total{type="DepositRequested"}')).toBe(1);
    expect(s.get('ledger_events_appended_total{type="DepositCompleted"}')).toBe(1);
    expect(s.get('ledger_events_appended_total{type="BetPlaced"}')).toBe(1);
    expect(s.get('ledger_events_appended_total{type="BetSettled"}')).toBe(1);
    expect(s.get('ledger_command_duration_seconds_count{command="requestDeposit",outcome="ok"}')).toBe(2);
    expect(s.get('ledger_command_duration_seconds_count{command="completeDeposit",outcome="ok"}')).toBe(1);
    expect(s.get('ledger_command_duration_seconds_count{command="placeBet",outcome="ok"}')).toBe(1);
    expect(s.get('ledger_command_duration_seconds_count{command="settleBet",outcome="ok"}')).toBe(1);
    expect(s.get('ledger_command_duration_seconds_count{command="settleBet",outcome="rejected"}')).toBe(1);
    expect(sumOf(s, 'ledger_command_duration_seconds_count')).toBe(6);
    // Every command lands in the +Inf bucket; the sum of durations is positive.
    expect(s.get('ledger_command_duration_seconds_bucket{le="+Inf",command="requestDeposit",outcome="ok"}')).toBe(2);
    expect(s.get('ledger_command_duration_seconds_sum{command="requestDeposit",outcome="ok"}')).toBeGreaterThan(0);
    expect(s.has('process_cpu_user_seconds_total')).toBe(true);
  });

  it("when the projector is behind and then catches up, then each projection's lag and position show it", async () => {
    const behind = samples((await scrape()).text);
    const stored = await eventCount();
    for (const p of allProjections) {
      expect(behind.get(`projection_lag_events{projection="${p.name}"}`)).toBe(stored); // never run: everything is behind
      expect(behind.get(`projection_lag_seconds{projection="${p.name}"}`)).toBeGreaterThanOrEqual(0);
      expect(behind.get(`projection_rebuild_in_progress{projection="${p.name}"}`)).toBe(0);
    }
    projector = startProjector({ store: rawStore, pool, projections: allProjections });
    await projector.waitFor(await untilVisible(rawStore, pool));
    const last = Number((await pool.query<{ p: string }>('SELECT max(global_position) AS p FROM events')).rows[0]!.p);
    // A read model with no event of its own in the batch stores its checkpoint a moment after the in-process progress moves.
    await eventually(async () => {
      const caughtUp = samples((await scrape()).text);
      for (const p of allProjections) {
        expect(caughtUp.get(`projection_lag_events{projection="${p.name}"}`)).toBe(0);
        expect(caughtUp.get(`projection_lag_seconds{projection="${p.name}"}`)).toBe(0);
        expect(caughtUp.get(`projection_position{projection="${p.name}"}`)).toBe(last);
      }
    });
    await projector.stop();
    projector = undefined;
  });

  it('when the gateway reports sockets and throttled messages, then both show', async () => {
    let sockets = 3;
    metrics.setSocketCount(() => sockets);
    metrics.onThrottled('198.51.100.7');
    metrics.onThrottled('198.51.100.7');
    let s = samples((await scrape()).text);
    expect(s.get('ws_sockets_connected')).toBe(3);
    expect(s.get('ws_throttled_messages_total')).toBe(2);
    sockets = 1;
    s = samples((await scrape()).text);
    expect(s.get('ws_sockets_connected')).toBe(1);
    expect((await scrape()).text).not.toContain('198.51.100.7');
  });

  it('when METRICS_TOKEN is set, then the bearer token is required; the route is not a back-office route', async () => {
    for (const headers of <Record<string, string>[]>[
      {},
      { authorization: 'Bearer wrong' },
      { authorization: `Bearer ${METRICS_TOKEN}x` },
      { authorization: METRICS_TOKEN },
    ]) {
      const reply = await scrape(guardedUrl, headers);
      expect(reply.status).toBe(401);
      expect(JSON.parse(reply.text)).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
    }
    const ok = await scrape(guardedUrl, { authorization: `Bearer ${METRICS_TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('# TYPE ledger_events_appended_total counter');
    expect(registry.map((r) => r.path)).not.toContain('/metrics');
  });

  it('when a process runs no back office (METRICS_PORT), then its metrics app serves /metrics (token) and /health only', async () => {
    const gatewayMetrics = createMetrics();
    gatewayMetrics.setSocketCount(() => 7);
    gatewayMetrics.onThrottled('198.51.100.8');
    const url = await serve(createMetricsApp({ logger, pool, store: rawStore, metrics: gatewayMetrics, metricsToken: METRICS_TOKEN }));
    expect((await scrape(url)).status).toBe(401);
    const s = samples((await scrape(url, { authorization: `Bearer ${METRICS_TOKEN}` })).text);
    expect([s.get('ws_sockets_connected'), s.get('ws_throttled_messages_total')]).toEqual([7, 1]);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const other = await fetch(`${url}/users`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ code: 'NOT_FOUND' });
  });
});
