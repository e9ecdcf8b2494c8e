import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { migrateLedger } from '../../src/commands/ledger.migration.js';
import { createAdminApp } from '../../src/http/admin-app.js';
import type { EventStore } from '../../src/infra/event-store/event-store.port.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { migrateEventStore } from '../../src/infra/event-store/postgres/postgres.migration.js';
import { createLogger } from '../../src/infra/logger.js';
import { migrateNonCore } from '../../src/schema.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { betBody, depositBody, uid, withdrawalBody } from '../support/internal-bodies.js';

const TOKEN = 'test-service-token-0123456789';
const logger = createLogger({ level: 'silent' });
/** The ledger's clock in this suite: bounds are measured from it. */
const NOW = new Date('2026-11-28T12:00:00.000Z');
const BOUNDS = { maxSkewMs: 60_000, maxAgeDays: 400 };

type Reply = Readonly<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any

let db: TestDb;
let pool: pg.Pool;
let store: EventStore;
let server: Server;
let baseUrl: string;

const post = async (path: string, body: unknown = {}, headers: Record<string, string> = {}): Promise<Reply> => {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'x-service-token': TOKEN, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};

let nextUser = 5000;
const funded = async (): Promise<number> => {
  const userId = ++nextUser;
  const { body } = await post('/internal/deposits', depositBody(userId, { amount: '2' }));
  expect((await post(`/internal/deposits/${body.id}/complete`, { txHash: '0xabc' })).status).toBe(200);
  return userId;
};

/** The two times of the events of one stream, oldest first. */
const timesOf = async (userId: number): Promise<{ type: string; at: string; effectiveAt: string }[]> =>
  (
    await pool.query<{ type: string; at: string; effective_at: string }>(
      `SELECT type, data->>'at' AS at, data->>'effectiveAt' AS effective_at FROM events WHERE stream_id = $1 ORDER BY stream_revision`,
      [`wallet-${userId}`],
    )
  ).rows.map((r) => ({ type: r.type, at: r.at, effectiveAt: r.effective_at }));
const eventCount = async (): Promise<number> => Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n);

const expectRefused = (reply: Reply) => {
  expect(reply.status).toBe(400);
  expect(reply.body).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED' });
  expect(reply.body.details.map((d: { field: string }) => d.field)).toContain('body.effectiveAt');
};

beforeAll(async () => {
  db = await createTestDb('internal_business_time');
  pool = db.pool();
  await migrateEventStore(pool);
  await migrateLedger(pool);
  await migrateNonCore(pool);
  store = createPostgresEventStore({ pool });
  const ledger = createLedger({ store, pool, clock: () => NOW, businessTimeBounds: BOUNDS });
  const app = createAdminApp({ logger, pool, store, ledger, internalApiToken: TOKEN });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await store?.close();
  await db?.drop();
});

describe('effectiveAt on the internal API', () => {
  it('when a bet is placed and settled with business times, then its events record them, in UTC, beside the recording time', async () => {
    const userId = await funded();
    const bet = betBody(userId, { effectiveAt: '2026-11-27T13:00:00+01:00' });
    expect((await post('/internal/bets', bet)).status).toBe(201);
    expect((await post(`/internal/bets/${bet.id}/settle`, { payout: '0.2', effectiveAt: '2026-11-27T12:00:05Z' })).status).toBe(200);
    expect((await timesOf(userId)).slice(-2)).toEqual([
      { type: 'BetPlaced', at: NOW.toISOString(), effectiveAt: '2026-11-27T12:00:00.000Z' },
      { type: 'BetSettled', at: NOW.toISOString(), effectiveAt: '2026-11-27T12:00:05.000Z' },
    ]);
  });

  it('when no effectiveAt is sent, then the business time is the recording time', async () => {
    const userId = await funded();
    expect((await timesOf(userId)).map((t) => t.effectiveAt)).toEqual([NOW.toISOString(), NOW.toISOString()]);
  });

  it('when every provider step states one, then each event records its own (deposit, withdrawal, rollback, error, claim)', async () => {
    const userId = ++nextUser;
    const t = (n: number) => `2026-11-2${n}T10:00:00.000Z`;
    const dep = await post('/internal/deposits', depositBody(userId, { amount: '2', effectiveAt: t(0) }));
    await post(`/internal/deposits/${dep.body.id}/confirm`, { effectiveAt: t(1) });
    await post(`/internal/deposits/${dep.body.id}/complete`, { effectiveAt: t(2) });
    const failed = await post('/internal/deposits', depositBody(userId));
    await post(`/internal/deposits/${failed.body.id}/fail`, { reason: 'expired', effectiveAt: t(3) });
    const [b1, b2] = [betBody(userId), betBody(userId)];
    await post('/internal/bets', b1);
    await post('/internal/bets', b2);
    await post(`/internal/bets/${b1.id}/rollback`, { effectiveAt: t(4) });
    await post(`/internal/bets/${b2.id}/error`, { errorDetails: 'crash', effectiveAt: t(5) });
    await post('/internal/affiliate-claims', { claimId: uid('claim'), userId, currencyId: 'BTC', amount: '0.1', effectiveAt: t(6) });
    const byType = Object.fromEntries((await timesOf(userId)).map((e) => [e.type, e.effectiveAt]));
    expect(byType).toMatchObject({
      DepositRequested: NOW.toISOString(),
      DepositConfirmed: t(1),
      DepositCompleted: t(2),
      DepositFailed: t(3),
      BetRolledBack: t(4),
      BetErrored: t(5),
      AffiliateCommissionClaimed: t(6),
    });
  });

  it('when a withdrawal is completed or failed by the provider with a business time, then the event records it', async () => {
    const userId = await funded();
    const made = await post('/internal/withdrawals', withdrawalBody(userId), { 'idempotency-key': uid('wd') });
    expect(made.status).toBe(201);
    // The approval is the back office's: decided here through the ledger itself, with no business time of its own.
    const ledger = createLedger({ store, pool, clock: () => NOW });
    await ledger.approveWithdrawal(made.body.id, 1);
    expect(
      (await post(`/internal/withdrawals/${made.body.id}/fail`, { failedReason: 'node', effectiveAt: '2026-11-28T09:00:00Z' })).status,
    ).toBe(200);
    const times = await timesOf(userId);
    expect(times.at(-1)).toEqual({ type: 'WithdrawalFailed', at: NOW.toISOString(), effectiveAt: '2026-11-28T09:00:00.000Z' });
    expect(times.find((e) => e.type === 'WithdrawalApproved')?.effectiveAt).toBe(NOW.toISOString());
  });

  it.each([
    ['later than the recording time plus the skew', new Date(NOW.getTime() + 60_001).toISOString()],
    ['more than the maximum age before it', new Date(NOW.getTime() - 400 * 86_400_000 - 1).toISOString()],
  ])('when effectiveAt is %s, then 400 naming the field and nothing changes', async (_, effectiveAt) => {
    const userId = await funded();
    const bet = betBody(userId);
    await post('/internal/bets', bet);
    const before = await eventCount();
    expectRefused(await post('/internal/bets', betBody(userId, { effectiveAt })));
    expectRefused(await post(`/internal/bets/${bet.id}/settle`, { payout: '1', effectiveAt }));
    expectRefused(await post('/internal/deposits', depositBody(userId, { effectiveAt })));
    expectRefused(await post('/internal/affiliate-claims', { claimId: uid('c'), userId, currencyId: 'BTC', amount: '1', effectiveAt }));
    expect(await eventCount()).toBe(before);
  });

  it('when effectiveAt is at the edges of the bounds, then it is accepted', async () => {
    const userId = await funded();
    const latest = new Date(NOW.getTime() + 60_000).toISOString();
    const earliest = new Date(NOW.getTime() - 400 * 86_400_000).toISOString();
    expect((await post('/internal/bets', betBody(userId, { effectiveAt: latest }))).status).toBe(201);
    expect((await post('/internal/bets', betBody(userId, { effectiveAt: earliest }))).status).toBe(201);
  });

  it('when effectiveAt is not a date-time with zone, then 400 naming the field', async () => {
    const userId = await funded();
    expectRefused(await post('/internal/bets', betBody(userId, { effectiveAt: '2026-11-27 12:00' })));
  });

  it('when a command is retried with another effectiveAt, then it answers the first result and records nothing new', async () => {
    const userId = await funded();
    const bet = betBody(userId, { effectiveAt: '2026-11-27T12:00:00Z' });
    const first = await post('/internal/bets', bet);
    const before = await eventCount();
    const retry = await post('/internal/bets', { ...bet, effectiveAt: '2026-11-28T11:00:00Z' });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    const claim = { claimId: uid('claim'), userId, currencyId: 'BTC', amount: '0.1', effectiveAt: '2026-11-27T12:00:00Z' };
    const paid = await post('/internal/affiliate-claims', claim);
    const again = await post('/internal/affiliate-claims', { ...claim, effectiveAt: '2026-11-26T12:00:00Z' });
    expect([paid.status, again.status]).toEqual([201, 200]);
    expect(again.body).toEqual(paid.body);
    expect(await eventCount()).toBe(before + 1);
    expect((await timesOf(userId)).filter((e) => e.type === 'BetPlaced').map((e) => e.effectiveAt)).toEqual(['2026-11-27T12:00:00.000Z']);
  });
});
