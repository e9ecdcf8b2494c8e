import { isRight } from 'fp-ts/lib/Either.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRates } from '../../src/commands/rates.js';
import { comparePositions, parsePosition } from '../../src/infra/event-store/event-store.port.js';
import { replayUserEvents } from '../../src/realtime/socket-replay.js';
import { bearer, call } from '../support/auth-env.js';
import { createRealtimeEnv, type RealtimeEnv, type Received, type TestClient } from '../support/realtime-env.js';

type Meta = { position: string; replayed?: true };

const replayed: { hold?: Promise<void>; notify?: () => void } = {};

describe('realtime gateway: delivery across two gateways, the projector and the ledger publisher on one Redis', () => {
  let env: RealtimeEnv;
  let adminToken: string;
  let adminName: string;

  beforeAll(async () => {
    env = await createRealtimeEnv('gw_delivery', {
      gateways: 2,
      ws: { usersOnlineIntervalMs: 200, replayMaxEvents: 8 },
      // The store replay, held after reading while a test wants live events to arrive meanwhile.
      replay: (e) => async (userId, since) => {
        const result = await replayUserEvents(
          { store: e.store, pool: e.pool, rates: createRates({ pool: e.pool }), maxEvents: 8 },
          userId,
          since,
        );
        replayed.notify?.();
        await replayed.hold;
        return result;
      },
    });
    const admin = await env.signedIn({ roles: ['Admin'], permissions: ['admin-tips.tip'] });
    adminToken = admin.accessToken;
    adminName = admin.user.username!;
    // The tip names the admin from the users read model.
    await env.eventually(async () => expect((await env.pool.query('SELECT 1 FROM users WHERE id = $1', [admin.user.id])).rowCount).toBe(1));
  });
  afterEach(() => env.disconnectAll());
  afterAll(async () => {
    await env?.close();
  });

  const tip = async (recipientUserId: number, amount: string): Promise<void> => {
    const reply = await call(env.adminUrl, 'POST', '/admin-tips', {
      headers: bearer(adminToken),
      body: { recipientUserId, currencyId: 'USDT', amount, notes: 'gw test' },
    });
    expect(reply.status).toBe(201);
  };
  const ledgerEvents = (c: TestClient): Received[] =>
    c.received.filter((r) => r.event === 'BalanceUpdated' || r.event === 'BalanceTippedSuccess');
  const positionOf = (r: Received): string => (r.meta as Meta).position;
  /** A marker published after everything else on the same connection: once it is in, nothing earlier is still on its way. */
  const settle = async (clients: TestClient[], userIds: number[]): Promise<void> => {
    const marker = `m${Date.now()}${Math.random()}`;
    for (const id of userIds) await env.bus.publish('ProfileUpdated', { userId: id, payload: { marker } });
    await Promise.all(
      clients.filter((c) => c.socket.connected).map((c) => c.waitFor('ProfileUpdated', (p: { marker?: string }) => p.marker === marker)),
    );
  };

  it("when an admin tips through the back office, then the recipient's sockets on both gateways get BalanceUpdated and BalanceTippedSuccess exactly once, nobody else does", async () => {
    const alice = await env.signedIn();
    const bob = await env.signedIn();
    const a0 = await env.connect({ token: alice.accessToken, gateway: 0 });
    const a0cookie = await env.connect({ cookies: { access_token: alice.accessToken }, gateway: 0 });
    const a1 = await env.connect({ token: alice.accessToken, gateway: 1 });
    const b0 = await env.connect({ token: bob.accessToken, gateway: 0 });
    const b1 = await env.connect({ token: bob.accessToken, gateway: 1 });
    const anon = await env.connect({ gateway: 1 });
    const alices = [a0, a0cookie, a1];
    for (const c of [...alices, b0, b1]) await c.waitFor('AuthSuccess');

    await tip(alice.user.id, '12.5');
    await Promise.all(alices.map((c) => c.waitFor('BalanceTippedSuccess')));
    await settle([...alices, b0, b1], [alice.user.id, bob.user.id]);

    for (const c of alices) {
      const got = ledgerEvents(c);
      expect(got.map((r) => r.event)).toEqual(['BalanceUpdated', 'BalanceTippedSuccess']);
      expect(got[0]!.payload).toMatchObject({ currencyId: 'USDT', amount: '12.5', source: 'ADMIN_TIP' });
      expect(got[1]!.payload).toEqual({ amount: '12.5', currencyId: 'USDT', fromAdminUsername: adminName });
      expect(got[0]!.meta).toEqual({ position: positionOf(got[1]!) });
      expect(positionOf(got[0]!)).toBe(positionOf(ledgerEvents(a0)[0]!));
    }
    for (const c of [b0, b1, anon]) expect(ledgerEvents(c)).toEqual([]);
    [...alices, b0, b1, anon].forEach((c) => c.close());
  });

  it("when an affiliate commission is claimed, then the earner's sockets get BalanceUpdated (AFFILIATE_CLAIM) and AffiliateClaimSuccess at one position, nobody else does", async () => {
    const erin = await env.signedIn();
    const frank = await env.signedIn();
    const e0 = await env.connect({ token: erin.accessToken, gateway: 0 });
    const e1 = await env.connect({ token: erin.accessToken, gateway: 1 });
    const f0 = await env.connect({ token: frank.accessToken, gateway: 0 });
    for (const c of [e0, e1, f0]) await c.waitFor('AuthSuccess');

    const claimed = await env.ledger.claimAffiliateCommission({
      claimId: `aff-${erin.user.id}`,
      userId: erin.user.id,
      currencyId: 'USDT',
      amount: '7.25',
    });
    expect(isRight(claimed)).toBe(true);
    await Promise.all([e0, e1].map((c) => c.waitFor('AffiliateClaimSuccess')));
    await settle([e0, e1, f0], [erin.user.id, frank.user.id]);

    for (const c of [e0, e1]) {
      const got = c.received.filter((r) => r.event === 'BalanceUpdated' || r.event === 'AffiliateClaimSuccess');
      expect(got.map((r) => [r.event, r.payload])).toEqual([
        ['BalanceUpdated', { currencyId: 'USDT', amount: '7.25', usdAmount: expect.any(String), source: 'AFFILIATE_CLAIM' }],
        ['AffiliateClaimSuccess', { amount: '7.25', currencyId: 'USDT' }],
      ]);
      expect(got[0]!.meta).toEqual(got[1]!.meta);
    }
    expect(f0.all('AffiliateClaimSuccess')).toEqual([]);
    expect(f0.all('BalanceUpdated')).toEqual([]);
    // The accounting log has it under its own type.
    await env.eventually(async () => {
      const { rows } = await env.pool.query('SELECT type, amount::text, reference_id FROM transactions WHERE user_id = $1', [erin.user.id]);
      expect(rows).toEqual([{ type: 'AFFILIATE_CLAIM', amount: '7.25', reference_id: `aff-${erin.user.id}` }]);
    });
  });

  it("when an admin edits the profile and a settled bet crosses a VIP threshold, then the user's sockets get ProfileUpdated patches with positions, nobody else", async () => {
    const editor = await env.signedIn({ roles: ['Admin'], permissions: ['user.edit'] });
    const gina = await env.signedIn();
    const hank = await env.signedIn();
    const g0 = await env.connect({ token: gina.accessToken, gateway: 0 });
    const g1 = await env.connect({ token: gina.accessToken, gateway: 1 });
    const h0 = await env.connect({ token: hank.accessToken, gateway: 0 });
    for (const c of [g0, g1, h0]) await c.waitFor('AuthSuccess');
    const ledgerPatches = (c: TestClient) => c.all('ProfileUpdated').filter((r) => !('marker' in (r.payload as object)));

    const username = `gina${gina.user.id}`;
    const patched = await call(env.adminUrl, 'PATCH', `/user/${gina.user.id}`, {
      headers: bearer(editor.accessToken),
      body: { username, isPrivate: true, isStaff: true },
    });
    expect(patched.status).toBe(200);
    await Promise.all([g0, g1].map((c) => c.waitFor('ProfileUpdated', (p: { isPrivate?: boolean }) => p.isPrivate === true)));

    // 1,000 USD of settled stakes is VIP level 1 (src/domain/user/vip.ts).
    const dep = await env.ledger.requestDeposit({
      externalId: `vip-${gina.user.id}`,
      userId: gina.user.id,
      providerId: 'TEST',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount: '1000',
    });
    if (!isRight(dep)) throw new Error('deposit refused');
    await env.ledger.completeDeposit(dep.right.deposit.id, {});
    const bet = await env.ledger.placeBet({
      id: `vip-bet-${gina.user.id}`,
      userId: gina.user.id,
      roundId: 'vip',
      gameId: 1,
      gameIdentity: { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } },
      currencyId: 'USDT',
      amount: '1000',
      usdAmount: '1000',
    });
    expect(isRight(bet)).toBe(true);
    expect(isRight(await env.ledger.settleBet(`vip-bet-${gina.user.id}`, { payout: '0', usdPayout: '0' }))).toBe(true);
    await Promise.all([g0, g1].map((c) => c.waitFor('ProfileUpdated', (p: { vipLevel?: number }) => p.vipLevel === 1)));
    await settle([g0, g1, h0], [gina.user.id, hank.user.id]);

    for (const c of [g0, g1]) {
      const got = ledgerPatches(c);
      // isStaff is not part of the public user: it never reaches the socket.
      expect(got.map((r) => r.payload)).toEqual([{ username }, { isPrivate: true }, { vipLevel: 1 }]);
      got.forEach((r) => expect((r.meta as Meta).position).toMatch(/^\d+\/\d+$/));
    }
    expect(ledgerPatches(g0).map((r) => r.meta)).toEqual(ledgerPatches(g1).map((r) => r.meta));
    expect(ledgerPatches(h0)).toEqual([]);
  });

  it('when several balance changes happen, then every socket of the user gets them in ledger order with growing positions', async () => {
    const carol = await env.signedIn();
    const c0 = await env.connect({ token: carol.accessToken, gateway: 0 });
    const c1 = await env.connect({ token: carol.accessToken, gateway: 1 });
    await c0.waitFor('AuthSuccess');
    await c1.waitFor('AuthSuccess');
    const dep = await env.ledger.requestDeposit({
      externalId: `gw-${carol.user.id}`,
      userId: carol.user.id,
      providerId: 'TEST',
      networkId: 'ETH',
      currencyId: 'BTC',
      amount: '0.01',
    });
    if (!isRight(dep)) throw new Error('deposit refused');
    await env.ledger.completeDeposit(dep.right.deposit.id, {});
    for (let i = 0; i < 4; i += 1) {
      const bet = await env.ledger.placeBet({
        id: `gw-bet-${carol.user.id}-${i}`,
        userId: carol.user.id,
        roundId: `r${i}`,
        gameId: 1,
        gameIdentity: { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } },
        currencyId: 'BTC',
        amount: '0.001',
      });
      expect(isRight(bet)).toBe(true);
    }
    await env.eventually(() => expect(ledgerEvents(c1).length).toBe(5));
    await settle([c0, c1], [carol.user.id]);
    for (const c of [c0, c1]) {
      const got = ledgerEvents(c);
      expect(got.map((r) => (r.payload as { amount: string }).amount)).toEqual(['0.01', '0.009', '0.008', '0.007', '0.006']);
      const positions = got.map((r) => parsePosition(positionOf(r)));
      for (let i = 1; i < positions.length; i += 1) expect(comparePositions(positions[i - 1]!, positions[i]!)).toBe(-1);
    }
    expect(ledgerEvents(c0).map(positionOf)).toEqual(ledgerEvents(c1).map(positionOf));
    c0.close();
    c1.close();
  });

  it('when a client reconnects with the last position it saw, then it gets what it missed from the store, marked replayed, then RecoveryResult, and nothing twice', async () => {
    const dave = await env.signedIn();
    const witness = await env.connect({ token: dave.accessToken, gateway: 1 });
    const first = await env.connect({ token: dave.accessToken, gateway: 0 });
    await first.waitFor('AuthSuccess');
    await witness.waitFor('AuthSuccess');
    await tip(dave.user.id, '1');
    await first.waitFor('BalanceTippedSuccess');
    const lastSeen = positionOf(ledgerEvents(first).at(-1)!);
    first.close();

    await tip(dave.user.id, '2');
    await tip(dave.user.id, '3');
    // Once the witness has them, the publisher has read them: the store shows them to a replay too. (Under a busy
    // PostgreSQL a commit becomes readable only once older writing transactions end; a replay before that finds
    // nothing new and the events arrive live instead, which is also right, but not what this test is about.)
    await env.eventually(() => expect(witness.all('BalanceTippedSuccess')).toHaveLength(3));
    const again = await env.connect({ token: dave.accessToken, gateway: 0, since: lastSeen });
    const result = await again.waitFor<{ recovered: boolean; position: string }>('RecoveryResult');
    expect(result).toEqual({ recovered: true, position: expect.any(String) });
    // The witness saw both tips live; the reconnected socket must not get them a second time.
    await settle([again, witness], [dave.user.id]);

    const got = ledgerEvents(again);
    expect(got.map((r) => [r.event, (r.payload as { amount: string }).amount, (r.meta as Meta).replayed ?? false])).toEqual([
      ['BalanceUpdated', '3', true],
      ['BalanceTippedSuccess', '2', true],
      ['BalanceUpdated', '6', true],
      ['BalanceTippedSuccess', '3', true],
    ]);
    const live = ledgerEvents(witness)
      .slice(2)
      .map((r) => [r.event, positionOf(r)]);
    expect(got.map((r) => [r.event, positionOf(r)])).toEqual(live);
    // RecoveryResult follows the replayed events.
    const order = again.received
      .map((r) => r.event)
      .filter((e) => ['AuthSuccess', 'BalanceUpdated', 'BalanceTippedSuccess', 'RecoveryResult'].includes(e));
    expect(order).toEqual([
      'AuthSuccess',
      'BalanceUpdated',
      'BalanceTippedSuccess',
      'BalanceUpdated',
      'BalanceTippedSuccess',
      'RecoveryResult',
    ]);
    expect(comparePositions(parsePosition(result.position), parsePosition(positionOf(got.at(-1)!)))).toBeGreaterThanOrEqual(0);

    // The Recover event does the same on an open socket, with an acknowledgement.
    const ack = await again.ack('Recover', { since: lastSeen });
    expect(ack).toMatchObject({ status: 200, data: { recovered: true } });
    witness.close();
    again.close();
  });

  it('when live events arrive while the store is being read, then they are held back and follow the replayed ones, none twice', async () => {
    const frank = await env.signedIn();
    const witness = await env.connect({ token: frank.accessToken, gateway: 1 });
    const first = await env.connect({ token: frank.accessToken, gateway: 0 });
    await first.waitFor('AuthSuccess');
    await witness.waitFor('AuthSuccess');
    await tip(frank.user.id, '1');
    await first.waitFor('BalanceTippedSuccess');
    const lastSeen = positionOf(ledgerEvents(first).at(-1)!);
    first.close();
    await tip(frank.user.id, '2');
    await env.eventually(() => expect(witness.all('BalanceTippedSuccess')).toHaveLength(2)); // readable by the replay

    let release!: () => void;
    replayed.hold = new Promise((r) => {
      release = r;
    });
    const readDone = new Promise<void>((r) => {
      replayed.notify = r;
    });
    const again = await env.connect({ token: frank.accessToken, gateway: 0, since: lastSeen });
    await readDone; // the store has been read (up to its head, before the next tip)
    await tip(frank.user.id, '3');
    await env.eventually(() => expect(witness.all('BalanceTippedSuccess')).toHaveLength(3));
    await settle([witness], [frank.user.id]);
    expect(ledgerEvents(again)).toEqual([]); // tip 3 arrived live and is held back
    replayed.hold = undefined;
    replayed.notify = undefined;
    release();

    expect(await again.waitFor('RecoveryResult')).toMatchObject({ recovered: true });
    await settle([again], [frank.user.id]);
    const got = ledgerEvents(again).map((r) => [r.event, (r.payload as { amount: string }).amount, (r.meta as Meta).replayed ?? false]);
    expect(got).toEqual([
      ['BalanceUpdated', '3', true],
      ['BalanceTippedSuccess', '2', true],
      ['BalanceUpdated', '6', false],
      ['BalanceTippedSuccess', '3', false],
    ]);
    expect(ledgerEvents(again).map(positionOf)).toEqual(ledgerEvents(witness).slice(2).map(positionOf));
    const order = again.received.map((r) => r.event).filter((e) => ['BalanceTippedSuccess', 'RecoveryResult'].includes(e));
    expect(order).toEqual(['BalanceTippedSuccess', 'BalanceTippedSuccess', 'RecoveryResult']);
    witness.close();
    again.close();
  });

  it('when recovery is impossible (too many missed events, an unknown or malformed position, an anonymous socket), then RecoveryResult says recovered: false and why', async () => {
    const erin = await env.signedIn();
    const c = await env.connect({ token: erin.accessToken });
    await c.waitFor('AuthSuccess');
    await tip(erin.user.id, '1');
    await c.waitFor('BalanceTippedSuccess');
    const lastSeen = positionOf(ledgerEvents(c).at(-1)!);
    // Each tip gives BalanceUpdated, BalanceTippedSuccess and NotificationEventMessage: 9 events > WS_REPLAY_MAX_EVENTS = 8.
    for (let i = 0; i < 3; i += 1) await tip(erin.user.id, '1');
    await env.eventually(() => expect(c.all('BalanceTippedSuccess')).toHaveLength(4)); // published, so readable by the replay
    c.close();

    const tooMany = await env.connect({ token: erin.accessToken, since: lastSeen });
    expect(await tooMany.waitFor('RecoveryResult')).toEqual({ recovered: false, reason: 'TOO_MANY_EVENTS' });
    expect(ledgerEvents(tooMany).filter((r) => (r.meta as Meta | undefined)?.replayed)).toEqual([]);
    // Live delivery goes on after a refused recovery.
    await tip(erin.user.id, '5');
    expect(await tooMany.waitFor('BalanceTippedSuccess', (p: { amount: string }) => p.amount === '5')).toMatchObject({ amount: '5' });

    const unknown = await env.connect({ token: erin.accessToken, since: '999999999999/0' });
    expect(await unknown.waitFor('RecoveryResult')).toEqual({ recovered: false, reason: 'UNKNOWN_POSITION' });
    const malformed = await env.connect({ token: erin.accessToken, since: 'yesterday' });
    expect(await malformed.waitFor('RecoveryResult')).toEqual({ recovered: false, reason: 'MALFORMED_POSITION' });
    const anonymous = await env.connect({ since: lastSeen });
    expect(await anonymous.waitFor('RecoveryResult')).toEqual({ recovered: false, reason: 'UNAUTHENTICATED' });
    [tooMany, unknown, malformed, anonymous].forEach((s) => s.close());
  });

  it('when users and anonymous visitors are connected to both gateways, then UsersOnlineUpdated counts distinct users plus anonymous sockets over all gateways', async () => {
    const u = await env.signedIn();
    const v = await env.signedIn();
    const sockets = [
      await env.connect({ token: u.accessToken, gateway: 0 }),
      await env.connect({ token: u.accessToken, gateway: 0 }),
      await env.connect({ token: v.accessToken, gateway: 0 }),
      await env.connect({ token: u.accessToken, gateway: 1 }),
      await env.connect({ gateway: 1 }),
    ];
    // gateway 0: users u, v = 2; gateway 1: user u + one anonymous = 2.
    const latest = (c: TestClient) => (c.all('UsersOnlineUpdated').at(-1)?.payload as { count: number } | undefined)?.count;
    await env.eventually(() => expect(sockets.map(latest)).toEqual([4, 4, 4, 4, 4]));
    sockets.pop()!.close();
    await env.eventually(() => expect(sockets.map(latest)).toEqual([3, 3, 3, 3]));
    sockets.forEach((c) => c.close());
  });
});
