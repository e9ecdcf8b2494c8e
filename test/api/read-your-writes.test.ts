import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminApp } from '../../src/http/admin-app.js';
import { createLogger } from '../../src/infra/logger.js';
import { untilVisible } from '../support/audit-ledger.js';
import { bearer, call, createAuthEnv, signIn, type AuthEnv, type Reply } from '../support/auth-env.js';

/**
 * Read-your-writes in the back office: a command through the internal API, then at once the list an admin
 * reads shows it, every time, while other commands run concurrently. Waiting is the service's job: the test
 * neither sleeps nor retries a read.
 */
const TOKEN = 'test-service-token-0123456789';
// The suite runs 50 rounds per route; RYW_ROUNDS=200 is the long run.
const ROUNDS = Number(process.env.RYW_ROUNDS ?? 50);
const GAME = { name: 'Dice', slug: 'dice', type: 'original', provider: { name: 'House' } };
const POSITION = /^\d+\/\d+$/;

// Many rounds per route under a concurrent command load: minutes on a loaded machine, not seconds.
describe('consistent back-office reads', { timeout: 600_000 }, () => {
  let env: AuthEnv;
  let server: Server;
  let shortServer: Server;
  let base: string;
  let shortBound: string;
  let admin: Record<string, string>;
  let seq = 0;
  const uid = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${++seq}`;
  const internal = (path: string, body: unknown = {}): Promise<Reply> =>
    call(base, 'POST', `/internal${path}`, { headers: { 'x-service-token': TOKEN }, body });
  const read = (method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
    call(env.adminUrl, method, path, { headers: { ...admin, ...headers }, ...(body === undefined ? {} : { body }) });
  const fund = async (userId: number, amount: string): Promise<string> => {
    const d = await internal('/deposits', {
      externalId: uid('ext'),
      userId,
      providerId: 'TEST',
      networkId: 'BTC',
      currencyId: 'BTC',
      amount,
    });
    if (d.status !== 201) throw new Error(JSON.stringify(d.body));
    const done = await internal(`/deposits/${d.body.id}/complete`, {});
    expect({ status: done.status, body: done.status === 200 ? undefined : done.body, request: d.status }).toEqual({
      status: 200,
      body: undefined,
      request: 201,
    });
    return d.body.id as string;
  };

  // Concurrent command load: bets placed and settled by other users for the whole run.
  let loading = true;
  let loadCommands = 0;
  let load: Promise<void>[] = [];
  const startLoad = async (): Promise<void> => {
    const players = await Promise.all([0, 1, 2].map(async () => (await env.makeUser()).id));
    for (const p of players) await fund(p, '1000');
    load = players.map(async (userId) => {
      while (loading) {
        const id = uid('load');
        const placed = await internal('/bets', {
          id,
          userId,
          roundId: uid('r'),
          gameId: 1,
          gameIdentity: GAME,
          currencyId: 'BTC',
          amount: '0.01',
        });
        if (placed.status !== 201) throw new Error(`load bet: ${placed.status}`);
        await internal(`/bets/${id}/settle`, { payout: '0.01' });
        loadCommands += 2;
      }
    });
  };

  beforeAll(async () => {
    // The test asserts what a consistent read shows, not how soon: on a loaded machine the projector can need more than the
    // default bound (2 s) to reach a command, and the read would answer 'stale'. The stale answer is tested on its own server.
    env = await createAuthEnv('read_your_writes', {}, { readConsistencyTimeoutMs: 20_000 });
    // A read model the projector has not prepared yet has no checkpoint, and a read of it answers 'stale' at once. The
    // last committed event, once readable: another file's open transaction can hide it from headPosition for a while.
    await env.startProjector().waitFor(await untilVisible(env.store, env.pool));
    const app = createAdminApp({
      logger: createLogger({ level: 'silent' }),
      pool: env.pool,
      store: env.store,
      ledger: env.ledger,
      internalApiToken: TOKEN,
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const short = createAdminApp({
      logger: createLogger({ level: 'silent' }),
      pool: env.pool,
      store: env.store,
      ledger: env.ledger,
      auth: env.kit,
      readConsistencyTimeoutMs: 300,
    });
    shortServer = await new Promise<Server>((resolve) => {
      const s = short.listen(0, () => resolve(s));
    });
    shortBound = `http://127.0.0.1:${(shortServer.address() as AddressInfo).port}`;
    const superadmin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    admin = bearer((await signIn(env, superadmin)).accessToken);
    await startLoad();
  });
  afterAll(async () => {
    loading = false;
    await Promise.all(load);
    for (const s of [server, shortServer])
      await new Promise((r) => {
        s.closeAllConnections();
        s.close(r);
      });
    await env?.close();
  });

  const expectConsistent = (reply: Reply): void => {
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-read-consistency')).toBe('consistent');
    expect(reply.headers.get('x-ledger-position')).toMatch(POSITION);
  };

  it('when a deposit completes through the internal API, then GET /deposit?status=COMPLETE shows it at once, every time', async () => {
    const userId = (await env.makeUser()).id;
    for (let i = 1; i <= ROUNDS; i += 1) {
      const id = await fund(userId, '1');
      const list = await read('GET', `/deposit?sortBy=CREATED_AT&sortOrder=desc&status=COMPLETE&userId=${userId}&take=1`);
      expectConsistent(list);
      expect({ total: list.body.total, id: list.body.data[0]?.id }).toEqual({ total: i, id });
    }
    expect(loadCommands).toBeGreaterThan(0);
  });

  it('when a withdrawal is requested, approved by an admin and completed, then GET /withdraw shows each state at once, every time', async () => {
    const userId = (await env.makeUser()).id;
    await fund(userId, '1000');
    const newest = async (status: string): Promise<{ total: number; id: unknown }> => {
      const list = await read('GET', `/withdraw?sortBy=CREATED_AT&sortOrder=desc&status=${status}&userId=${userId}&take=1`);
      expectConsistent(list);
      return { total: list.body.total, id: list.body.data[0]?.id };
    };
    for (let i = 1; i <= ROUNDS; i += 1) {
      const requested = await internal('/withdrawals', {
        userId,
        currencyId: 'BTC',
        networkId: 'BTC',
        providerId: 'TEST',
        amount: '1',
        recipientAddress: 'bc1qexample',
      });
      expect(requested.status).toBe(201);
      const id = requested.body.id as string;
      expect(await newest('PENDING')).toEqual({ total: 1, id });
      expect((await read('POST', '/withdraw/approve', { id })).status).toBeLessThan(300);
      expect(await newest('CONFIRMED')).toEqual({ total: 1, id });
      expect((await internal(`/withdrawals/${id}/complete`, { txHash: '0xabc' })).status).toBe(200);
      expect(await newest('COMPLETE')).toEqual({ total: i, id });
    }
  });

  it('when a bet settles through the internal API, then GET and POST /bets and the accounting log show it at once, every time', async () => {
    const userId = (await env.makeUser()).id;
    await fund(userId, '1000');
    for (let i = 1; i <= ROUNDS; i += 1) {
      const id = uid('bet');
      expect(
        (await internal('/bets', { id, userId, roundId: uid('r'), gameId: 1, gameIdentity: GAME, currencyId: 'BTC', amount: '1' })).status,
      ).toBe(201);
      const settled = await internal(`/bets/${id}/settle`, { payout: '2' });
      expect(settled.status).toBe(200);
      expect(settled.headers.get('x-ledger-position')).toMatch(POSITION);
      const query = `sortBy=CREATED_AT&sortOrder=desc&take=1&where[userId]=${userId}&where[status]=SETTLED`;
      const [get, post, txs] = await Promise.all([
        read('GET', `/bets?${query}`),
        read('POST', '/bets', { sortBy: 'CREATED_AT', sortOrder: 'desc', page: 1, take: 1, where: { userId, status: 'SETTLED' } }),
        read('POST', '/accounting/transactions', { where: { userId }, take: 1 }),
      ]);
      for (const list of [get, post]) {
        expectConsistent(list);
        expect({ total: list.body.total, id: list.body.data[0]?.id }).toEqual({ total: i, id });
      }
      expectConsistent(txs);
      expect(txs.body.total).toBe(1 + 2 * i); // the deposit, then each bet's stake and payout
    }
  });

  it('when an admin tips through the back office, then GET /admin-tips shows it at once, every time', async () => {
    const recipient = (await env.makeUser()).id;
    for (let i = 1; i <= ROUNDS; i += 1) {
      const tipped = await read('POST', '/admin-tips', { amount: '1', currencyId: 'BTC', recipientUserId: recipient, notes: `tip ${i}` });
      expect(tipped.status).toBe(201);
      expect(tipped.headers.get('x-ledger-position')).toMatch(POSITION);
      const list = await read('GET', `/admin-tips?sortBy=CREATED_AT&sortOrder=desc&recipientUserId=${recipient}&take=1`);
      expectConsistent(list);
      expect({ total: list.body.total, notes: list.body.data[0]?.notes }).toEqual({ total: i, notes: `tip ${i}` });
    }
  });

  it('when a caller passes a position it holds, or opts out, or sends a malformed one, then the read waits for it, answers at once, or is refused naming the field', async () => {
    const userId = (await env.makeUser()).id;
    const id = await fund(userId, '3');
    const position = (await internal(`/deposits/${id}/complete`, {})).headers.get('x-ledger-position')!;
    const given = await read('GET', `/deposit?sortBy=CREATED_AT&sortOrder=desc&userId=${userId}&position=${encodeURIComponent(position)}`);
    expectConsistent(given);
    expect(given.body.total).toBe(1);
    const byHeader = await read('GET', `/deposit?sortBy=CREATED_AT&sortOrder=desc&userId=${userId}`, undefined, {
      'x-ledger-position': position,
    });
    expectConsistent(byHeader);
    const optedOut = await read('GET', `/deposit?sortBy=CREATED_AT&sortOrder=desc&userId=${userId}&consistency=none`);
    expect(optedOut.status).toBe(200);
    expect(optedOut.headers.get('x-read-consistency')).toBe('none');
    const malformed = await read('GET', `/deposit?sortBy=CREATED_AT&sortOrder=desc&position=abc`);
    expect(malformed).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: [{ field: 'query.position' }] } });
    // A position no read model will reach within the bound: answered anyway, marked stale (on a server with a short bound).
    const far = await call(shortBound, 'GET', `/deposit?sortBy=CREATED_AT&sortOrder=desc&userId=${userId}`, {
      headers: { ...admin, 'x-ledger-position': '99999999999/1' },
    });
    expect(far.status).toBe(200);
    expect(far.headers.get('x-read-consistency')).toBe('stale');
    expect(far.body.total).toBe(1);
  });
});
