import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { migrateLedger } from '../../src/commands/ledger.migration.js';
import type { Ledger } from '../../src/commands/ledger.types.js';
import { createAdminApp } from '../../src/http/admin-app.js';
import { leanInternalPath } from '../../src/http/internal.lean.js';
import { internalRoutes, internalRouteTable } from '../../src/http/internal.routes.js';
import { createBaseApp, finishApp } from '../../src/http/public-app.js';
import { trackAppends } from '../../src/infra/event-store/append-tracker.js';
import type { EventStore } from '../../src/infra/event-store/event-store.port.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { migrateEventStore } from '../../src/infra/event-store/postgres/postgres.migration.js';
import { createLogger } from '../../src/infra/logger.js';
import { migrateNonCore } from '../../src/schema.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { betBody, depositBody } from '../support/internal-bodies.js';

/**
 * The lean internal path against express: every request it takes is answered exactly as express answers it, and every
 * request it cannot read from its headers alone is left to express untouched.
 */
const TOKEN = 'lean-service-token-0123456789';
const logger = createLogger({ level: 'silent' });
const NOT_TAKEN = 599;

let db: TestDb;
let pool: pg.Pool;
let store: EventStore;
let ledger: Ledger;
const servers: Server[] = [];
const base = { express: '', lean: '', app: '' };

type Raw = Readonly<{ method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean }>;
type Answer = Readonly<{ status: number; headers: Record<string, string>; text: string }>;

/** Sent with node's own client, so the test chooses every header, the length and the framing. */
const send = (url: string, raw: Raw): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const { port } = new URL(url);
    const body = typeof raw.body === 'string' ? Buffer.from(raw.body) : raw.body;
    const headers: Record<string, string> = {
      'x-service-token': TOKEN,
      'content-type': 'application/json',
      'x-request-id': 'req-lean-1',
      ...(body && !raw.chunked ? { 'content-length': String(body.length) } : {}),
      ...raw.headers,
    };
    const req = request({ host: '127.0.0.1', port, path: raw.path, method: raw.method ?? 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h[k] = v;
        resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    if (body && raw.chunked) {
      req.write(body.subarray(0, 1));
      req.end(body.subarray(1));
    } else req.end(body);
  });

const listen = async (handler: Parameters<typeof createServer>[1]): Promise<string> => {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** What a client can tell apart, minus what differs between any two answers (date, the connection's framing). */
const comparable = (a: Answer) => {
  const { date: _date, connection: _c, 'keep-alive': _k, 'x-ledger-position': position, ...headers } = a.headers;
  return { status: a.status, headers, positioned: position !== undefined, body: a.text ? (JSON.parse(a.text) as unknown) : undefined };
};

let nextUser = 51_000;
const funded = async (): Promise<number> => {
  const userId = ++nextUser;
  const post = (path: string, body: unknown) => send(base.express, { path, body: JSON.stringify(body) });
  const deposit = JSON.parse((await post('/internal/deposits', depositBody(userId, { amount: '5' }))).text) as { id: string };
  await post(`/internal/deposits/${deposit.id}/confirm`, {});
  expect((await post(`/internal/deposits/${deposit.id}/complete`, { txHash: '0xabc' })).status).toBe(200);
  return userId;
};

beforeAll(async () => {
  db = await createTestDb('internal_lean');
  pool = db.pool();
  await migrateEventStore(pool);
  await migrateLedger(pool);
  await migrateNonCore(pool);
  store = trackAppends(createPostgresEventStore({ pool }));
  ledger = createLedger({ store, pool });
  const reference = createBaseApp({ logger, pool, store });
  reference.use('/internal', internalRoutes({ routes: internalRouteTable(ledger), serviceToken: TOKEN }));
  base.express = await listen(finishApp(reference, logger));
  const lean = leanInternalPath({ routes: internalRouteTable(ledger), mount: '/internal', serviceToken: TOKEN, logger, store });
  base.lean = await listen((req, res) => {
    if (!lean(req, res)) res.writeHead(NOT_TAKEN).end();
  });
  base.app = await listen(createAdminApp({ logger, pool, store, ledger, internalApiToken: TOKEN }));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await store?.close();
  await db?.drop();
});

describe('requests the lean path takes', () => {
  it('when a bet is placed on each path, then both answer 201 alike, and a replay on the other path answers the first one exactly', async () => {
    const userId = await funded();
    const [a, b] = [betBody(userId), betBody(userId)];
    const viaLean = await send(base.lean, { path: '/internal/bets', body: JSON.stringify(a) });
    const viaExpress = await send(base.express, { path: '/internal/bets', body: JSON.stringify(b) });
    expect(viaLean.status).toBe(201);
    const shape = (x: Answer) => {
      const c = comparable(x);
      return {
        ...c,
        headers: { ...c.headers, etag: typeof c.headers['etag'], 'content-length': 'n' },
        body: Object.keys(c.body as object),
      };
    };
    expect(shape(viaLean)).toEqual(shape(viaExpress));
    expect(comparable(viaLean).positioned).toBe(true);

    const replayOnExpress = await send(base.express, { path: '/internal/bets', body: JSON.stringify(a) });
    const replayOnLean = await send(base.lean, { path: '/internal/bets', body: JSON.stringify(b) });
    expect(replayOnExpress.status).toBe(200);
    expect(JSON.parse(replayOnExpress.text)).toEqual(JSON.parse(viaLean.text));
    expect(comparable(replayOnLean)).toEqual(comparable({ ...viaExpress, status: 200 }));
    expect(replayOnLean.headers['etag']).toBe(viaExpress.headers['etag']);
  });

  it('when the bet is refused, malformed or invalid, then the lean path answers byte for byte what express answers', async () => {
    const userId = await funded();
    const cases: Raw[] = [
      { path: '/internal/bets', body: JSON.stringify(betBody(userId, { amount: '999999' })) },
      { path: '/internal/bets', body: JSON.stringify(betBody(userId, { amount: '-1' })) },
      { path: '/internal/bets', body: JSON.stringify(betBody(987_654, {})) },
      { path: '/internal/bets', body: JSON.stringify({ ...betBody(userId), gameIdentity: undefined, currencyId: 'NOPE' }) },
      { path: '/internal/bets', body: JSON.stringify(betBody(userId, { roundId: 'a\u0000b' })) },
      { path: '/internal/bets', body: '{"id": "x",' },
      { path: '/internal/bets', body: '"a string"' },
      { path: '/internal/bets', body: '   ' },
      { path: '/internal/bets', body: '[1, 2]' },
      { path: '/internal/bets', body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ id: 'x' }))]) },
      { path: '/internal/bets', body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) },
      { path: '/internal/bets/no-such-bet/settle', body: JSON.stringify({ payout: '1' }) },
      { path: '/internal/bets/no-such-bet/rollback', body: '{}' },
      { path: '/internal/withdrawals', body: '{}' },
      { path: '/internal/deposits/dep-1/fail', body: JSON.stringify({ reason: 1 }) },
      { path: '/internal/bets', body: JSON.stringify(betBody(userId)), headers: { 'content-type': 'application/json; charset=UTF-8' } },
    ];
    for (const c of cases) {
      const viaLean = await send(base.lean, c);
      expect(viaLean.status, c.path).not.toBe(NOT_TAKEN);
      if (viaLean.status === 201) continue;
      const viaExpress = await send(base.express, c);
      expect(comparable(viaLean), String(c.body)).toEqual(comparable(viaExpress));
      expect(viaLean.text).toBe(viaExpress.text);
    }
  });
});

describe('requests the lean path leaves to express', () => {
  it('when the request needs more than its headers to place, then the lean path takes none of it and the app answers as express does', async () => {
    const userId = await funded();
    const body = () => JSON.stringify(betBody(userId));
    const cases: Raw[] = [
      { path: '/internal/bets', body: body(), headers: { 'x-service-token': 'wrong' } },
      { path: '/internal/bets', body: body(), headers: { 'content-type': 'text/plain' } },
      { path: '/internal/bets', body: body(), headers: { 'content-type': 'application/json; charset=latin1' } },
      { path: '/internal/bets', body: body(), headers: { 'content-encoding': 'gzip' } },
      { path: '/internal/bets?x=1', body: body() },
      { path: '/internal/bets/', body: body() },
      { path: '/Internal/Bets', body: body() },
      { path: '/internal/bets', body: body(), chunked: true },
      { path: '/internal/bets', body: 'x'.repeat(200 * 1024) },
      { path: '/internal/bets', body: '' },
      { path: '/internal/nothing-here', body: '{}' },
      { path: '/internal/bets/a%20b/settle', body: JSON.stringify({ payout: '1' }) },
      { method: 'GET', path: `/internal/wallets/${userId}/balances` },
      { method: 'PUT', path: '/internal/bets', body: body() },
    ];
    for (const c of cases) {
      expect((await send(base.lean, c)).status, `${c.method ?? 'POST'} ${c.path}`).toBe(NOT_TAKEN);
      const viaApp = await send(base.app, c);
      const viaExpress = await send(base.express, c);
      expect(viaApp.status, `${c.method ?? 'POST'} ${c.path}`).toBeLessThan(500);
      // A command both accept is placed twice: the second answer is its replay (200), so only success is compared.
      const strip = (x: Answer) => (x.status < 300 ? 'accepted' : comparable(x));
      expect(strip(viaApp)).toEqual(strip(viaExpress));
    }
  });
});

describe('a caller that goes away', () => {
  it('when a body stops short and the connection closes, then the service goes on answering and the bet is not placed', async () => {
    const userId = await funded();
    const body = JSON.stringify(betBody(userId));
    const { port } = new URL(base.app);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `POST /internal/bets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nx-service-token: ${TOKEN}\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 20)}`,
    );
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    await new Promise((r) => socket.once('close', r));

    const next = await send(base.app, { path: '/internal/bets', body: JSON.stringify(betBody(userId)) });
    expect(next.status).toBe(201);
    const replay = await send(base.app, { path: '/internal/bets', body });
    expect(replay.status).toBe(201);
  });
});
