import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { migrateLedger } from '../../src/commands/ledger.migration.js';
import type { Ledger } from '../../src/commands/ledger.types.js';
import { createAdminApp } from '../../src/http/admin-app.js';
import type { EventStore } from '../../src/infra/event-store/event-store.port.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { migrateEventStore } from '../../src/infra/event-store/postgres/postgres.migration.js';
import { createLogger } from '../../src/infra/logger.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { migrateNonCore } from '../../src/schema.js';
import { betBody, depositBody, uid, withdrawalBody } from '../support/internal-bodies.js';

const TOKEN = 'test-service-token-0123456789';
const logger = createLogger({ level: 'silent' });

type Reply = Readonly<{ status: number; body: any; headers: Headers }>; // eslint-disable-line @typescript-eslint/no-explicit-any

let db: TestDb;
let pool: pg.Pool;
let store: EventStore;
let ledger: Ledger;
const servers: Server[] = [];
let baseUrl: string;

const serve = async (app: ReturnType<typeof createAdminApp>): Promise<string> => {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, base = baseUrl): Promise<Reply> => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-service-token': TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
};
const post = (path: string, body: unknown = {}, headers?: Record<string, string>) => call('POST', path, body, headers);

let nextUser = 1000;
const newUser = () => ++nextUser;
/** A user whose wallet holds `amount` of `currencyId`, through the real deposit lifecycle. */
const funded = async (amount = '1.5', currencyId = 'BTC'): Promise<number> => {
  const userId = newUser();
  const { body } = await post('/internal/deposits', depositBody(userId, { amount, currencyId }));
  await post(`/internal/deposits/${body.id}/confirm`);
  expect((await post(`/internal/deposits/${body.id}/complete`, { txHash: '0xabc' })).status).toBe(200);
  return userId;
};

const balanceOf = async (userId: number, currencyId = 'BTC'): Promise<string> => {
  const { body } = await call('GET', `/internal/wallets/${userId}/balances`);
  return (body as { currencyId: string; balance: string }[]).find((b) => b.currencyId === currencyId)?.balance ?? '0';
};
const eventCount = async (): Promise<number> => Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n);

/** Runs `act` and checks that it changed neither the event store nor the user's balances. */
const unchanged = async (userId: number, act: () => Promise<Reply>): Promise<Reply> => {
  const [events, balances] = [await eventCount(), (await call('GET', `/internal/wallets/${userId}/balances`)).body];
  const reply = await act();
  expect(await eventCount()).toBe(events);
  expect((await call('GET', `/internal/wallets/${userId}/balances`)).body).toEqual(balances);
  return reply;
};

const expectValidation = (reply: Reply, field: string) => {
  expect(reply.status).toBe(400);
  expect(reply.body).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED' });
  expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
};

beforeAll(async () => {
  db = await createTestDb('internal_api');
  pool = db.pool();
  await migrateEventStore(pool);
  await migrateLedger(pool);
  await migrateNonCore(pool);
  store = createPostgresEventStore({ pool });
  ledger = createLedger({ store, pool });
  baseUrl = await serve(createAdminApp({ logger, pool, store, ledger, internalApiToken: TOKEN }));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await store?.close();
  await db?.drop();
});

describe('service token', () => {
  it('when x-service-token is missing, then 401 UNAUTHORIZED and nothing changes', async () => {
    const userId = newUser();
    const reply = await unchanged(userId, () => call('POST', '/internal/deposits', depositBody(userId), { 'x-service-token': '' }));
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
  });

  it('when the token is wrong (same length or not), then 401 UNAUTHORIZED', async () => {
    for (const token of [TOKEN.replace(/.$/, 'X'), 'short', `${TOKEN}-longer`]) {
      const reply = await call('GET', '/internal/wallets/1/balances', undefined, { 'x-service-token': token });
      expect(reply.status).toBe(401);
      expect(reply.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('when INTERNAL_API_TOKEN is unset, then the internal API answers 404 NOT_FOUND', async () => {
    const off = await serve(createAdminApp({ logger, pool, store, ledger }));
    const reply = await call('POST', '/internal/deposits', depositBody(newUser()), {}, off);
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
  });
});

describe('POST /internal/deposits', () => {
  it('when a deposit is reported, then 201 with the PENDING deposit; a repeat of providerId + externalId answers 200 with the same deposit', async () => {
    const userId = newUser();
    const body = depositBody(userId, { usdAmount: '97500.5', txHash: '0x1', payAddress: 'addr', payMemo: null });
    const first = await post('/internal/deposits', body);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      userId,
      externalId: body.externalId,
      providerId: 'PROVIDER_A',
      networkId: 'BTC',
      currencyId: 'BTC',
      amount: '1.5',
      usdAmount: '97500.5',
      status: 'PENDING',
      txHash: '0x1',
      payAddress: 'addr',
      payMemo: null,
    });
    expect(typeof first.body.id).toBe('string');
    const events = await eventCount();
    const repeat = await post('/internal/deposits', body);
    expect(repeat.status).toBe(200);
    expect(repeat.body.id).toBe(first.body.id);
    expect(await eventCount()).toBe(events);
  });

  it('when confirmed then completed, then each answers 200, completion credits the wallet once, and confirm/fail afterwards are 409', async () => {
    const userId = newUser();
    const { body: deposit } = await post('/internal/deposits', depositBody(userId, { amount: '2.5' }));
    const confirmed = await post(`/internal/deposits/${deposit.id}/confirm`, { txHash: '0xc' });
    expect(confirmed).toMatchObject({ status: 200, body: { id: deposit.id, status: 'CONFIRMED', txHash: '0xc' } });
    const completed = await post(`/internal/deposits/${deposit.id}/complete`, {});
    expect(completed).toMatchObject({ status: 200, body: { id: deposit.id, status: 'COMPLETE' } });
    expect(await balanceOf(userId)).toBe('2.5');
    // A provider retrying its callback gets the same answer and no second credit.
    const again = await unchanged(userId, () => post(`/internal/deposits/${deposit.id}/complete`, {}));
    expect(again).toMatchObject({ status: 200, body: { id: deposit.id, status: 'COMPLETE' } });
    for (const path of ['confirm', 'fail']) {
      const illegal = await unchanged(userId, () => post(`/internal/deposits/${deposit.id}/${path}`, { reason: 'late' }));
      expect(illegal).toMatchObject({ status: 409, body: { statusCode: 409, code: 'DEPOSIT_INVALID_STATE' } });
    }
    expect(await balanceOf(userId)).toBe('2.5');
  });

  it('when a pending deposit fails, then 200 FAILED; failing a completed one is 409 DEPOSIT_INVALID_STATE', async () => {
    const userId = newUser();
    const { body: deposit } = await post('/internal/deposits', depositBody(userId));
    expect(await post(`/internal/deposits/${deposit.id}/fail`, { reason: 'chain reorg' })).toMatchObject({
      status: 200,
      body: { status: 'FAILED' },
    });
    expect((await post(`/internal/deposits/${deposit.id}/confirm`, {})).body.code).toBe('DEPOSIT_INVALID_STATE');
    expectValidation(await post(`/internal/deposits/${deposit.id}/fail`, {}), 'body.reason');
  });

  it('when the deposit id is unknown, then 404 DEPOSIT_NOT_FOUND', async () => {
    expect(await post('/internal/deposits/no-such-deposit/confirm', {})).toMatchObject({
      status: 404,
      body: { code: 'DEPOSIT_NOT_FOUND' },
    });
  });

  const invalid: readonly [string, Record<string, unknown>, string][] = [
    ['amount is missing', { amount: undefined }, 'body.amount'],
    ['amount is a number', { amount: 5 }, 'body.amount'],
    ['amount is in exponent form', { amount: '1e5' }, 'body.amount'],
    ['amount has more decimals than BTC (8)', { amount: '0.000000001' }, 'body.amount'],
    ['amount has more decimals than DBC (2)', { currencyId: 'DBC', amount: '1.001' }, 'body.amount'],
    ['amount is negative', { amount: '-1' }, 'body.amount'],
    ['amount is zero', { amount: '0' }, 'body.amount'],
    ['amount is not a number', { amount: 'ten' }, 'body.amount'],
    ['usdAmount has more than 8 decimals', { usdAmount: '1.123456789' }, 'body.usdAmount'],
    ['currencyId is unknown', { currencyId: 'DOGE' }, 'body.currencyId'],
    ['currencyId is PLATFORM_TOKEN (not a request currency)', { currencyId: 'PLATFORM_TOKEN' }, 'body.currencyId'],
    ['providerId is unknown', { providerId: 'PROVIDER_Z' }, 'body.providerId'],
    ['networkId is unknown', { networkId: 'MARS' }, 'body.networkId'],
    ['userId is a string', { userId: '7' }, 'body.userId'],
    ['userId is negative', { userId: -3 }, 'body.userId'],
    ['externalId is missing', { externalId: undefined }, 'body.externalId'],
  ];
  it.each(invalid)('when %s, then 400 VALIDATION_FAILED naming the field and nothing changes', async (_case, over, field) => {
    const userId = await funded();
    expectValidation(await unchanged(userId, () => post('/internal/deposits', depositBody(userId, over))), field);
  });

  it('when several fields are bad, then every one is listed', async () => {
    const reply = await post('/internal/deposits', { userId: 'x', currencyId: 'BTC', amount: '0.123456789' });
    expectValidation(reply, 'body.userId');
    expect(reply.body.details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(['body.externalId', 'body.providerId', 'body.networkId', 'body.amount']),
    );
  });

  it('when the body is not valid JSON, then 400 INVALID_JSON', async () => {
    const reply = await post('/internal/deposits', '{"userId": 1,');
    expect(reply).toMatchObject({ status: 400, body: { statusCode: 400, code: 'INVALID_JSON' } });
  });
});

describe('POST /internal/bets', () => {
  it('when a bet is placed, then 201 CREATED and the stake is debited; a repeat answers 200 with the same bet', async () => {
    const userId = await funded('1');
    const body = betBody(userId, { amount: '0.25' });
    const placed = await post('/internal/bets', body);
    expect(placed.status).toBe(201);
    expect(placed.body).toMatchObject({
      id: body.id,
      userId,
      roundId: body.roundId,
      gameId: 7,
      gameIdentity: body.gameIdentity,
      currencyId: 'BTC',
      amount: '0.25',
      status: 'CREATED',
      multiplier: 0,
    });
    expect(await balanceOf(userId)).toBe('0.75');
    const repeat = await post('/internal/bets', body);
    expect(repeat).toMatchObject({ status: 200, body: { id: body.id, status: 'CREATED' } });
    expect(await balanceOf(userId)).toBe('0.75');
  });

  it('when settled, then 200 SETTLED with the payout credited; settling or rolling back again is 409 BET_INVALID_STATE', async () => {
    const userId = await funded('1');
    const { body: bet } = await post('/internal/bets', betBody(userId, { amount: '0.5' }));
    const settled = await post(`/internal/bets/${bet.id}/settle`, { payout: '1.25' });
    expect(settled).toMatchObject({ status: 200, body: { id: bet.id, status: 'SETTLED', payout: '1.25' } });
    expect(settled.body.multiplier).toBe(2.5);
    expect(await balanceOf(userId)).toBe('1.75');
    for (const path of ['settle', 'rollback']) {
      const reply = await unchanged(userId, () => post(`/internal/bets/${bet.id}/${path}`, { payout: '1' }));
      expect(reply).toMatchObject({ status: 409, body: { statusCode: 409, code: 'BET_INVALID_STATE' } });
    }
  });

  it('when rolled back or errored, then the stake is refunded', async () => {
    const userId = await funded('1');
    const { body: a } = await post('/internal/bets', betBody(userId, { amount: '0.4' }));
    expect(await post(`/internal/bets/${a.id}/rollback`)).toMatchObject({ status: 200, body: { status: 'ROLLBACK', multiplier: 0 } });
    const { body: b } = await post('/internal/bets', betBody(userId, { amount: '0.3' }));
    expect(await post(`/internal/bets/${b.id}/error`, { errorDetails: 'game crashed' })).toMatchObject({
      status: 200,
      body: { status: 'ERROR', errorDetails: 'game crashed', multiplier: 0 },
    });
    expect(await balanceOf(userId)).toBe('1');
  });

  it('when the stake exceeds the balance, then 409 INSUFFICIENT_FUNDS and nothing changes', async () => {
    const userId = await funded('0.1');
    const reply = await unchanged(userId, () => post('/internal/bets', betBody(userId, { amount: '0.10000001' })));
    expect(reply).toMatchObject({ status: 409, body: { statusCode: 409, code: 'INSUFFICIENT_FUNDS' } });
  });

  it('when the bet id is unknown, then 404 BET_NOT_FOUND', async () => {
    expect(await post('/internal/bets/no-such-bet/settle', { payout: '1' })).toMatchObject({
      status: 404,
      body: { code: 'BET_NOT_FOUND' },
    });
  });

  it('when the bet id is reused for another user, then 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const [a, b] = [await funded('1'), await funded('1')];
    const body = betBody(a);
    await post('/internal/bets', body);
    const reply = await unchanged(b, () => post('/internal/bets', { ...body, userId: b }));
    expect(reply).toMatchObject({ status: 422, body: { code: 'IDEMPOTENCY_KEY_REUSED' } });
  });

  const invalid: readonly [string, Record<string, unknown>, string][] = [
    ['id is missing', { id: undefined }, 'body.id'],
    ['gameId is a string', { gameId: 'x' }, 'body.gameId'],
    [
      'gameIdentity lacks provider.name',
      { gameIdentity: { name: 'Dice', slug: 'dice', type: 'original', provider: {} } },
      'body.gameIdentity.provider.name',
    ],
    ['gameIdentity is missing', { gameIdentity: undefined }, 'body.gameIdentity'],
    ['amount is in exponent form', { amount: '1e5' }, 'body.amount'],
    ['amount has more decimals than USDT (6)', { currencyId: 'USDT', amount: '1.0000001' }, 'body.amount'],
    ['amount is negative', { amount: '-0.1' }, 'body.amount'],
    ['currencyId is unknown', { currencyId: 'XYZ' }, 'body.currencyId'],
  ];
  it.each(invalid)('when %s, then 400 VALIDATION_FAILED naming the field and nothing changes', async (_case, over, field) => {
    const userId = await funded('1');
    expectValidation(await unchanged(userId, () => post('/internal/bets', betBody(userId, over))), field);
  });

  it('when the payout is malformed or more precise than the bet currency, then 400 on body.payout and nothing changes', async () => {
    const userId = await funded('1');
    const { body: bet } = await post('/internal/bets', betBody(userId));
    for (const payout of ['1e2', '-1', '0.000000001', undefined]) {
      expectValidation(await unchanged(userId, () => post(`/internal/bets/${bet.id}/settle`, { payout })), 'body.payout');
    }
    expectValidation(await post(`/internal/bets/${bet.id}/error`, {}), 'body.errorDetails');
  });
});

describe('POST /internal/withdrawals', () => {
  it('when requested, then 201 PENDING with the funds held; a repeat with the same Idempotency-Key answers 200 with the same withdrawal', async () => {
    const userId = await funded('1');
    const key = uid('idem');
    const body = withdrawalBody(userId, { recipientMemo: 'memo' });
    const first = await post('/internal/withdrawals', body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      userId,
      currencyId: 'BTC',
      networkId: 'BTC',
      providerId: 'PROVIDER_B',
      amount: '0.25',
      status: 'PENDING',
      recipientAddress: 'bc1qexample',
      recipientMemo: 'memo',
      txHash: null,
    });
    expect(await balanceOf(userId)).toBe('0.75');
    const repeat = await post('/internal/withdrawals', body, { 'idempotency-key': key });
    expect(repeat).toMatchObject({ status: 200, body: { id: first.body.id } });
    expect(await balanceOf(userId)).toBe('0.75');
    expect((await post('/internal/withdrawals', body)).status).toBe(201);
    expect(await balanceOf(userId)).toBe('0.5');
  });

  it('when the provider completes or fails an approved withdrawal, then 200 COMPLETE / FAILED; before approval it is 409 WITHDRAWAL_INVALID_STATE', async () => {
    const userId = await funded('1');
    const { body: w } = await post('/internal/withdrawals', withdrawalBody(userId));
    const early = await unchanged(userId, () => post(`/internal/withdrawals/${w.id}/complete`, { txHash: '0xd' }));
    expect(early).toMatchObject({ status: 409, body: { statusCode: 409, code: 'WITHDRAWAL_INVALID_STATE' } });
    await ledger.approveWithdrawal(w.id, 1);
    expect(await post(`/internal/withdrawals/${w.id}/complete`, { txHash: '0xd' })).toMatchObject({
      status: 200,
      body: { status: 'COMPLETE', txHash: '0xd' },
    });
    expect(await balanceOf(userId)).toBe('0.75');

    const { body: w2 } = await post('/internal/withdrawals', withdrawalBody(userId));
    await ledger.approveWithdrawal(w2.id, 1);
    expect(await post(`/internal/withdrawals/${w2.id}/fail`, { failedReason: 'provider down' })).toMatchObject({
      status: 200,
      body: { status: 'FAILED', failedReason: 'provider down' },
    });
    expectValidation(await post(`/internal/withdrawals/${w2.id}/complete`, {}), 'body.txHash');
    expect(await post('/internal/withdrawals/nope/fail', { failedReason: 'x' })).toMatchObject({
      status: 404,
      body: { code: 'WITHDRAWAL_NOT_FOUND' },
    });
  });

  it('when the amount exceeds the balance, then 409 INSUFFICIENT_FUNDS and nothing changes', async () => {
    const userId = await funded('0.2');
    const reply = await unchanged(userId, () => post('/internal/withdrawals', withdrawalBody(userId, { amount: '0.3' })));
    expect(reply).toMatchObject({ status: 409, body: { code: 'INSUFFICIENT_FUNDS' } });
  });

  const invalid: readonly [string, Record<string, unknown>, string][] = [
    ['recipientAddress is missing', { recipientAddress: undefined }, 'body.recipientAddress'],
    ['amount has more decimals than BTC', { amount: '0.123456789' }, 'body.amount'],
    ['amount is in exponent form', { amount: '2E-1' }, 'body.amount'],
    ['networkId is unknown', { networkId: 'LIGHTNING' }, 'body.networkId'],
    ['providerId is unknown', { providerId: 'PAYPAL' }, 'body.providerId'],
  ];
  it.each(invalid)('when %s, then 400 VALIDATION_FAILED naming the field and nothing changes', async (_case, over, field) => {
    const userId = await funded('1');
    expectValidation(await unchanged(userId, () => post('/internal/withdrawals', withdrawalBody(userId, over))), field);
  });
});

describe('POST /internal/affiliate-claims', () => {
  const claimBody = (userId: number, over: Record<string, unknown> = {}) => ({
    claimId: uid('claim'),
    userId,
    currencyId: 'USDT',
    amount: '12.345678',
    ...over,
  });

  it('when a commission is claimed, then 201 with the claim and the wallet credited from house:affiliate; a repeat answers 200 and credits nothing more', async () => {
    const userId = await funded('2', 'USDT');
    const body = claimBody(userId, { usdAmount: '12.35' });
    const first = await post('/internal/affiliate-claims', body);
    expect(first).toMatchObject({
      status: 201,
      body: {
        claimId: body.claimId,
        userId,
        currencyId: 'USDT',
        amount: '12.345678',
        usdAmount: '12.35',
        transactionId: `aff_${body.claimId}`,
        balance: '14.345678',
      },
    });
    // The balance moves, then the claim is retried with another USD figure: the answer is the first claim, nothing is credited.
    const dep = await post('/internal/deposits', depositBody(userId, { currencyId: 'USDT', amount: '1' }));
    await post(`/internal/deposits/${dep.body.id}/complete`, {});
    expect(await post('/internal/affiliate-claims', { ...body, usdAmount: '99' })).toEqual({
      status: 200,
      body: first.body,
      headers: expect.anything(),
    });
    expect(await balanceOf(userId, 'USDT')).toBe('15.345678');
    const { rows } = await pool.query<{ data: { postings: unknown[] } }>(
      `SELECT data FROM events WHERE stream_id = $1 AND type = 'AffiliateCommissionClaimed'`,
      [`wallet-${userId}`],
    );
    expect(rows.map((r) => r.data.postings)).toEqual([
      [
        { account: 'house:affiliate', currencyId: 'USDT', amount: '-12.345678' },
        { account: `user:${userId}`, currencyId: 'USDT', amount: '12.345678' },
      ],
    ]);
  });

  it('when the claim id comes back with another amount or for another user, then 422 IDEMPOTENCY_KEY_REUSED and nothing changes', async () => {
    const [a, b] = [newUser(), newUser()];
    const body = claimBody(a);
    expect((await post('/internal/affiliate-claims', body)).status).toBe(201);
    expect(await unchanged(a, () => post('/internal/affiliate-claims', { ...body, amount: '1' }))).toMatchObject({
      status: 422,
      body: { code: 'IDEMPOTENCY_KEY_REUSED' },
    });
    expect(await unchanged(b, () => post('/internal/affiliate-claims', { ...body, userId: b }))).toMatchObject({
      status: 422,
      body: { code: 'IDEMPOTENCY_KEY_REUSED' },
    });
  });

  it.each([
    ['claimId is missing', { claimId: undefined }, 'body.claimId'],
    ['amount is zero', { amount: '0' }, 'body.amount'],
    ['amount is more precise than USDT', { amount: '0.0000001' }, 'body.amount'],
    ['usdAmount has nine decimals (USD keeps 8)', { usdAmount: '1.000000001' }, 'body.usdAmount'],
    ['usdAmount is negative', { usdAmount: '-1' }, 'body.usdAmount'],
    ['currencyId is unknown', { currencyId: 'XYZ' }, 'body.currencyId'],
    ['userId is not a number', { userId: 'me' }, 'body.userId'],
  ] as const)('when %s, then 400 VALIDATION_FAILED naming the field and nothing changes', async (_case, over, field) => {
    const userId = newUser();
    expectValidation(await unchanged(userId, () => post('/internal/affiliate-claims', claimBody(userId, over))), field);
  });
});

describe('GET /internal/wallets/:userId/balances', () => {
  it('when the wallet holds funds, then 200 with a balance per currency', async () => {
    const userId = await funded('3', 'USDT');
    const reply = await call('GET', `/internal/wallets/${userId}/balances`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(expect.arrayContaining([{ userId, currencyId: 'USDT', balance: '3' }]));
  });

  it('when the user id is not a positive integer, then 400 on params.userId', async () => {
    expectValidation(await call('GET', '/internal/wallets/abc/balances'), 'params.userId');
  });
});

describe('errors', () => {
  it('when the route is unknown, then 404 NOT_FOUND and the x-request-id is echoed', async () => {
    const reply = await call('GET', '/internal/nothing-here', undefined, { 'x-request-id': 'req-123' });
    expect(reply).toMatchObject({ status: 404, body: { statusCode: 404, code: 'NOT_FOUND' } });
    expect(reply.headers.get('x-request-id')).toBe('req-123');
  });

  it('when something unexpected throws, then 500 INTERNAL_ERROR with the request id and no internals', async () => {
    const broken = new Proxy(ledger, {
      get: (target, prop, receiver) =>
        prop === 'balances'
          ? () => Promise.reject(new Error('relation "secret_table" does not exist'))
          : Reflect.get(target, prop, receiver),
    });
    const base = await serve(createAdminApp({ logger, pool, store, ledger: broken, internalApiToken: TOKEN }));
    const reply = await call('GET', '/internal/wallets/1/balances', undefined, {}, base);
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({
      statusCode: 500,
      code: 'INTERNAL_ERROR',
      message: 'Internal server error',
      requestId: reply.headers.get('x-request-id'),
    });
    expect(JSON.stringify(reply.body)).not.toContain('secret_table');
  });
});
