import { randomBytes } from 'node:crypto';
import { isRight } from 'fp-ts/lib/Either.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRates } from '../../src/commands/rates.js';
import { createLocalBus, createRedisBus, type ServerEventBus } from '../../src/infra/bus.js';
import { comparePositions, formatPosition, parsePosition } from '../../src/infra/event-store/event-store.port.js';
import type { FeedSettings } from '../../src/realtime/feeds.js';
import type { BetRecord } from '../../src/realtime/server-events.js';
import { startLedgerPublisher, type LedgerPublisher, type LedgerPublisherDeps } from '../../src/realtime/server-event-publisher.js';
import { LIVE_BETS_ROOM, liveDropRoom } from '../../src/shared/rooms.js';
import { createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { eventually } from '../support/eventually.js';
import { fund, must, placeBet, positionsAscending, projectedUser, recordBus, type BusRecord } from '../support/realtime-ledger.js';
import { untilVisible } from '../support/audit-ledger.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const FEEDS: FeedSettings = { bigWinMinUsd: '50', highRollerMinUsd: '20', luckyWinMinMultiplier: '5', luckyWinMinStakeUsd: '1' };

const payloadOf = <T>(r: BusRecord): T => r.message.payload as T;
const bets = (records: readonly BusRecord[]): BetRecord[] => records.flatMap((r) => payloadOf<BetRecord[]>(r));
/**
 * A feed as a client shows it, newest first: each message is newest first and newer than the ones before. How
 * many settlements one message carries depends on how far behind the publisher is (the suite's load), so the test
 * compares this view, never the message boundaries.
 */
const newestFirst = (records: readonly BusRecord[]): BetRecord[] => bets([...records].reverse());

describe('the realtime publisher (ledger -> Redis server channels)', () => {
  let env: AuthEnv;
  let publisher: LedgerPublisher;
  let bus: ServerEventBus;
  const connections: Redis[] = [];
  let rec: Awaited<ReturnType<typeof recordBus>>;
  const prefix = `test:publisher:${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    env = await createAuthEnv('publisher');
    env.startProjector(); // the users read model tells who is private (feeds); notifications are stored
    connections.push(new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL));
    bus = createRedisBus(connections[0]!, connections[1]!, prefix);
    // A separate listener connection, as a gateway would have.
    rec = await recordBus(createRedisBus(connections[0]!, connections[2]!, prefix));
    publisher = await startLedgerPublisher({ store: env.store, pool: env.pool, bus, rates: createRates({ pool: env.pool }), feeds: FEEDS });
  });
  afterAll(async () => {
    await publisher.stop();
    await rec.unsubscribe();
    connections.forEach((c) => c.disconnect());
    await env.close();
  });

  it('when an admin tips a user, then BalanceUpdated, BalanceTippedSuccess and the notification reach that user only, at one position', async () => {
    const admin = await env.makeUser({ roles: ['Admin'], username: 'tipper1' });
    const alice = await env.makeUser();
    const bob = await env.makeUser();
    const tip = await env.ledger.tip({
      recipientUserId: alice.id,
      adminUserId: admin.id,
      currencyId: 'USDT',
      amount: '12.5',
      notes: 'welcome',
    });
    expect(isRight(tip)).toBe(true);
    await eventually(() => expect(rec.forUser(alice.id)).toHaveLength(3));
    const [updated, tipped, notified] = rec.forUser(alice.id);
    expect(updated).toMatchObject({
      name: 'BalanceUpdated',
      message: { payload: { currencyId: 'USDT', amount: '12.5', usdAmount: '12.5', source: 'ADMIN_TIP' } },
    });
    expect(tipped).toMatchObject({
      name: 'BalanceTippedSuccess',
      message: { payload: { amount: '12.5', currencyId: 'USDT', fromAdminUsername: 'tipper1' } },
    });
    expect(notified).toMatchObject({
      name: 'NotificationEventMessage',
      message: { payload: { type: 'ADMIN_TIP_RECEIVED', payload: { amount: '12.5', currencyId: 'USDT', usdAmount: '12.5' } } },
    });
    expect(new Set(rec.forUser(alice.id).map((r) => r.message.position)).size).toBe(1);
    expect(JSON.stringify(rec.forUser(alice.id))).not.toContain('welcome'); // the admin's notes stay in the back office
    expect(rec.forUser(bob.id)).toEqual([]);
  });

  it('when a user deposits and bets, then each balance change is pushed with its source and growing positions', async () => {
    const carol = await env.makeUser();
    const dep = await env.ledger.requestDeposit({
      externalId: `pub-${carol.id}`,
      userId: carol.id,
      providerId: 'TEST',
      networkId: 'ETH',
      currencyId: 'BTC',
      amount: '0.01',
    });
    if (!isRight(dep)) throw new Error('deposit refused');
    await env.ledger.completeDeposit(dep.right.deposit.id, {});
    await env.ledger.placeBet({
      id: `pub-bet-${carol.id}`,
      userId: carol.id,
      roundId: 'r',
      gameId: 1,
      gameIdentity: { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } },
      currencyId: 'BTC',
      amount: '0.004',
    });
    const balances = () => rec.forUser(carol.id, 'BalanceUpdated');
    await eventually(() => expect(balances()).toHaveLength(2));
    expect(balances().map((r) => [payloadOf<{ source: string }>(r).source, payloadOf<{ amount: string }>(r).amount])).toEqual([
      ['DEPOSIT', '0.01'],
      ['BET', '0.006'],
    ]);
    const [a, b] = balances().map((r) => String(r.message.position).split('/').map(BigInt));
    expect(a![0]! < b![0]! || (a![0] === b![0] && a![1]! < b![1]!)).toBe(true);
  });

  it('when bets are placed, settled, rolled back and errored, then MyBets gives the whole bet at every step, in ledger order', async () => {
    const dora = await env.makeUser();
    await fund(env.ledger, dora.id, 'USDT', '100');
    const won = await placeBet(env.ledger, dora.id, { amount: '3', slug: 'plinko' });
    must(await env.ledger.settleBet(won, { payout: '7.5' }));
    const rolled = await placeBet(env.ledger, dora.id, { amount: '2' });
    must(await env.ledger.rollbackBet(rolled));
    const failed = await placeBet(env.ledger, dora.id, { amount: '1' });
    must(await env.ledger.errorBet(failed, { errorDetails: 'provider timeout' }));
    await eventually(() => expect(rec.forUser(dora.id, 'MyBets')).toHaveLength(6));
    const mine = bets(rec.forUser(dora.id, 'MyBets'));
    expect(mine.map((b) => [b.id, b.status])).toEqual([
      [won, 'CREATED'],
      [won, 'SETTLED'],
      [rolled, 'CREATED'],
      [rolled, 'ROLLBACK'],
      [failed, 'CREATED'],
      [failed, 'ERROR'],
    ]);
    expect(mine[1]).toMatchObject({
      userId: dora.id,
      currencyId: 'USDT',
      amount: '3',
      usdAmount: '3',
      payout: '7.5',
      usdPayout: '7.5',
      multiplier: 2.5,
      gameIdentity: { name: 'PLINKO', slug: 'plinko', type: 'ORIGINALS', provider: { name: 'house' }, images: null },
      errorDetails: null,
    });
    expect(mine[1]!.settledAt).not.toBeNull();
    expect(mine[1]!.createdAt).toBe(mine[0]!.createdAt);
    expect(mine[5]).toMatchObject({ status: 'ERROR', errorDetails: 'provider timeout', amount: '1' });
    expect(
      rec.forUser(dora.id, 'BalanceUpdated').map((r) => [payloadOf<{ source: string }>(r).source, payloadOf<{ amount: string }>(r).amount]),
    ).toEqual([
      ['DEPOSIT', '100'],
      ['BET', '97'],
      ['BET_PAYOUT', '104.5'],
      ['BET', '102.5'],
      ['ROLLBACK_BET', '104.5'],
      ['BET', '103.5'],
      ['BET_ERROR_REFUND', '104.5'],
    ]);
    expect(positionsAscending(rec.forUser(dora.id).map((r) => String(r.message.position)))).toBe(true);
  });

  it('when bets settle, then LatestBets, BigWins, HighRollers and LuckyWins reach the rooms by the ranking rules, and a private bettor stays anonymous', async () => {
    const ann = await env.makeUser();
    const pat = await env.makeUser();
    must(await env.users.execute(pat.id, { type: 'UpdateProfile', data: { changes: { isPrivate: true } } }, null));
    await Promise.all([projectedUser(env.pool, ann.id), projectedUser(env.pool, pat.id, { isPrivate: true })]);
    await fund(env.ledger, ann.id, 'USDT', '1000');
    await fund(env.ledger, pat.id, 'USDT', '1000');
    const big = await placeBet(env.ledger, ann.id, { amount: '30', slug: 'dice' }); // stake 30 >= 20: high roller; payout 60 >= 50: big win; 2x: not lucky
    must(await env.ledger.settleBet(big, { payout: '60' }));
    const lucky = await placeBet(env.ledger, pat.id, { amount: '2', slug: 'crash' }); // 10x with a 2 USD stake: lucky; nothing else
    must(await env.ledger.settleBet(lucky, { payout: '20' }));
    const open = await placeBet(env.ledger, ann.id, { amount: '500', slug: 'dice' }); // never settled: in no feed
    const ids = (name: string, room = LIVE_BETS_ROOM) =>
      newestFirst(rec.inRoom(room, name))
        .map((b) => b.id)
        .filter((id) => [big, lucky, open].includes(id));
    await eventually(() => expect(ids('LatestBets')).toEqual([lucky, big]));
    await eventually(() => expect(ids('LuckyWins')).toEqual([lucky]));
    expect(ids('BigWins')).toEqual([big]);
    expect(ids('HighRollers')).toEqual([big]);
    expect(ids('LatestBets', liveDropRoom('dice'))).toEqual([big]);
    expect(ids('LatestBets', liveDropRoom('crash'))).toEqual([lucky]);
    const shown = bets(rec.inRoom(LIVE_BETS_ROOM, 'BigWins')).find((b) => b.id === big) as BetRecord & { user: Record<string, unknown> };
    expect(shown).toMatchObject({
      status: 'SETTLED',
      userId: ann.id,
      usdPayout: '60',
      user: { id: ann.id, username: ann.username, isPrivate: false, isBanned: false },
    });
    const hidden = bets(rec.inRoom(LIVE_BETS_ROOM, 'LuckyWins')).find((b) => b.id === lucky) as unknown as {
      userId: unknown;
      user: Record<string, unknown>;
    };
    expect(hidden.userId).toBeNull();
    expect(hidden.user).toMatchObject({ id: null, username: null, isPrivate: true });
    const publicText = JSON.stringify(rec.received.filter((r) => r.message.room !== undefined));
    expect(publicText).not.toContain(pat.username!);
    expect(publicText).not.toContain(ann.email);
    expect(publicText).not.toContain(pat.email);
    // Feeds are room messages: never addressed to a user, never positioned.
    expect(
      rec.received
        .filter((r) => r.message.room !== undefined)
        .every((r) => r.message.userId === undefined && r.message.position === undefined),
    ).toBe(true);
    expect(rec.forUser(pat.id, 'ProfileUpdated').map((r) => r.message.payload)).toEqual([{ isPrivate: true }]);
  });

  it('when withdrawals are approved, completed or rejected, then NotificationEventMessage carries the very id and payload the notifications table stores', async () => {
    const eve = await env.makeUser();
    const admin = await env.makeUser({ roles: ['Admin'] });
    await fund(env.ledger, eve.id, 'USDT', '50');
    const w1 = must(
      await env.ledger.requestWithdrawal({
        userId: eve.id,
        currencyId: 'USDT',
        networkId: 'ETH',
        providerId: 'TEST',
        amount: '10',
        recipientAddress: '0xabc',
      }),
    ).withdrawal.id;
    must(await env.ledger.approveWithdrawal(w1, admin.id));
    must(await env.ledger.completeWithdrawal(w1, { txHash: '0xfeed' }));
    const w2 = must(
      await env.ledger.requestWithdrawal({
        userId: eve.id,
        currencyId: 'USDT',
        networkId: 'ETH',
        providerId: 'TEST',
        amount: '5',
        recipientAddress: '0xabc',
      }),
    ).withdrawal.id;
    must(await env.ledger.rejectWithdrawal(w2, admin.id, 'address on a blocklist'));
    const pushed = () =>
      rec
        .forUser(eve.id, 'NotificationEventMessage')
        .map((r) => payloadOf<{ id: string; type: string; payload: Record<string, unknown> }>(r));
    await eventually(() => expect(pushed()).toHaveLength(4));
    expect(pushed().map((n) => n.type)).toEqual([
      'DEPOSIT_COMPLETED',
      'WITHDRAWAL_APPROVED',
      'WITHDRAWAL_COMPLETED',
      'WITHDRAWAL_REJECTED',
    ]);
    expect(pushed()[2]!.payload).toEqual({ withdrawalId: w1, amount: '10', currencyId: 'USDT', usdAmount: '10', txHash: '0xfeed' });
    expect(pushed()[3]!.payload).toEqual({ withdrawalId: w2, amount: '5', currencyId: 'USDT', rejectReason: 'address on a blocklist' });
    await eventually(async () => {
      const { rows } = await env.pool.query<{ id: string; type: string; payload: unknown }>(
        'SELECT id, type, payload FROM notifications WHERE user_id = $1 ORDER BY position_commit, position_prepare',
        [eve.id],
      );
      expect(rows).toEqual(pushed().map((n) => ({ id: n.id, type: n.type, payload: n.payload })));
    });
  });

  it('when the profile changes, then ProfileUpdated patches the public fields only; crossing a VIP threshold gives {vipLevel}, also for a freshly started publisher', async () => {
    const fay = await env.makeUser();
    const admin = await env.makeUser({ roles: ['Admin'] });
    must(await env.users.execute(fay.id, { type: 'SetUsername', data: { username: `fay${fay.id}` } }, admin.id));
    must(await env.users.execute(fay.id, { type: 'UpdateProfile', data: { changes: { avatar: '/a/fay.png', isTest: true } } }, admin.id));
    await fund(env.ledger, fay.id, 'USDT', '20000');
    for (const amount of ['600', '600']) must(await env.ledger.settleBet(await placeBet(env.ledger, fay.id, { amount }), { payout: '0' }));
    const profile = () => rec.forUser(fay.id, 'ProfileUpdated').map((r) => r.message.payload);
    await eventually(() => expect(profile()).toEqual([{ username: `fay${fay.id}` }, { avatar: '/a/fay.png' }, { vipLevel: 1 }]));
    const settles = rec.forUser(fay.id, 'MyBets').filter((r) => payloadOf<BetRecord[]>(r)[0]!.status === 'SETTLED');
    expect(rec.forUser(fay.id, 'ProfileUpdated')[2]!.message.position).toBe(settles[1]!.message.position);

    // A new publisher knows no running totals: it starts from the user-stats read model and its checkpoint.
    await publisher.stop();
    publisher = await startLedgerPublisher({ store: env.store, pool: env.pool, bus, rates: createRates({ pool: env.pool }), feeds: FEEDS });
    must(await env.ledger.settleBet(await placeBet(env.ledger, fay.id, { amount: '5000' }), { payout: '0' })); // 6200: still level 1
    must(await env.ledger.settleBet(await placeBet(env.ledger, fay.id, { amount: '3800' }), { payout: '0' })); // 10000: level 2
    await eventually(() => expect(profile()).toHaveLength(4));
    expect(profile()[3]).toEqual({ vipLevel: 2 });
  });

  it('when two users are tipped concurrently, then each user gets only their own events, in ledger order', async () => {
    const admin = await env.makeUser({ roles: ['Admin'] });
    const [x, y] = [await env.makeUser(), await env.makeUser()];
    // x is tipped 1 USDT ten times, y 2 USDT: a payload of the other user's would show.
    await Promise.all(
      [
        [x, '1'],
        [y, '2'],
      ].map(async ([u, amount]) => {
        const { id } = u as typeof x;
        for (let i = 0; i < 10; i++)
          must(
            await env.ledger.tip({ recipientUserId: id, adminUserId: admin.id, currencyId: 'USDT', amount: amount as string, notes: 'n' }),
          );
      }),
    );
    for (const [u, step] of [
      [x, 1],
      [y, 2],
    ] as const) {
      await eventually(() => expect(rec.forUser(u.id)).toHaveLength(30)); // BalanceUpdated, BalanceTippedSuccess, notification per tip
      expect(rec.forUser(u.id, 'BalanceUpdated').map((r) => payloadOf<{ amount: string }>(r).amount)).toEqual(
        Array.from({ length: 10 }, (_, i) => String((i + 1) * step)),
      );
      expect(new Set(rec.forUser(u.id, 'BalanceTippedSuccess').map((r) => payloadOf<{ amount: string }>(r).amount))).toEqual(
        new Set([String(step)]),
      );
      expect(positionsAscending(rec.forUser(u.id).map((r) => String(r.message.position)))).toBe(true);
    }
  });
});

describe('the realtime publisher on the in-process bus (single-process mode)', () => {
  let env: AuthEnv;
  let publisher: LedgerPublisher;
  const bus = createLocalBus();
  /** A publisher under its own checkpoint name, on a bus of its own that a recorder listens to. */
  const publisherOfItsOwn = async (o: Pick<LedgerPublisherDeps, 'name' | 'checkpointEveryMs' | 'logger'>) => {
    const own = createLocalBus();
    const rec = await recordBus(own);
    const publisher = await startLedgerPublisher({
      store: env.store,
      pool: env.pool,
      bus: own,
      rates: createRates({ pool: env.pool }),
      ...o,
    });
    return { rec, publisher };
  };
  /** A stored checkpoint at or past `position` (other events may follow it: the projector appends some of its own). */
  const atOrAfter = (stored: string | undefined, position: string): boolean =>
    stored !== undefined && comparePositions(parsePosition(stored), parsePosition(position)) >= 0;
  const checkpointOf = async (name: string): Promise<string | undefined> =>
    (await env.pool.query<{ position: string }>(`SELECT position FROM publisher_checkpoints WHERE name = $1`, [name])).rows[0]?.position;

  beforeAll(async () => {
    env = await createAuthEnv('publisher_local');
    env.startProjector();
    publisher = await startLedgerPublisher({ store: env.store, pool: env.pool, bus, rates: createRates({ pool: env.pool }) });
  });
  afterAll(async () => {
    await publisher.stop();
    await env.close();
  });

  it('when a user deposits and bets, then the same per-user and room events arrive with default feed thresholds', async () => {
    const rec = await recordBus(bus);
    const gil = await env.makeUser();
    await projectedUser(env.pool, gil.id);
    await fund(env.ledger, gil.id, 'USDT', '500');
    must(await env.ledger.settleBet(await placeBet(env.ledger, gil.id, { amount: '150', slug: 'mines' }), { payout: '10' }));
    await eventually(() => expect(rec.inRoom(LIVE_BETS_ROOM, 'HighRollers')).toHaveLength(1));
    expect(rec.forUser(gil.id).map((r) => r.name)).toEqual([
      'BalanceUpdated',
      'NotificationEventMessage',
      'BalanceUpdated',
      'MyBets',
      'BalanceUpdated',
      'MyBets',
    ]);
    // Defaults: high roller from 100 USD stake; big win from 100 USD payout; lucky from 10x.
    expect(
      rec
        .inRoom(LIVE_BETS_ROOM)
        .map((r) => r.name)
        .sort(),
    ).toEqual(['HighRollers', 'LatestBets']);
    expect(bets(rec.inRoom(liveDropRoom('mines'), 'LatestBets'))[0]).toMatchObject({
      userId: gil.id,
      usdAmount: '150',
      payout: '10',
      user: { username: gil.username },
    });
    await rec.unsubscribe();
  });

  it('when batches follow one another, then the checkpoint is stored at most once per interval, and a stop stores the last published position', async () => {
    const stored = (): Promise<string | undefined> => checkpointOf('cadence');
    const { rec, publisher: cadence } = await publisherOfItsOwn({ name: 'cadence', checkpointEveryMs: 60_000 });
    const hal = await env.makeUser();
    await fund(env.ledger, hal.id, 'USDT', '500');
    // The first batch after the start is stored at once.
    const first = await eventually(async () => {
      const p = await stored();
      expect(p).toBeDefined();
      return p!;
    });
    for (const amount of ['1', '2', '3']) must(await env.ledger.settleBet(await placeBet(env.ledger, hal.id, { amount }), { payout: '0' }));
    const settled = () => rec.forUser(hal.id, 'MyBets').filter((r) => payloadOf<BetRecord[]>(r)[0]!.status === 'SETTLED');
    await eventually(() => expect(settled()).toHaveLength(3));
    const lastSettled = String(settled().at(-1)!.message.position);
    // Later batches within the interval are published but not stored: a restart now would publish them again.
    expect(await stored()).toBe(first);
    expect(lastSettled).not.toBe(first);
    await cadence.stop();
    expect(atOrAfter(await stored(), lastSettled)).toBe(true);
    await rec.unsubscribe();
  });

  it('when storing the checkpoint fails, then the batch is published again until it can be stored, and later batches move it on', async () => {
    const retries: string[] = [];
    const { rec, publisher: flaky } = await publisherOfItsOwn({
      name: 'flaky',
      checkpointEveryMs: 0,
      logger: { warn: (_o, msg) => retries.push(msg ?? '') },
    });
    const ivy = await env.makeUser();
    await fund(env.ledger, ivy.id, 'USDT', '50');
    await eventually(() => expect(rec.forUser(ivy.id, 'BalanceUpdated')).toHaveLength(1));
    await env.pool.query('ALTER TABLE publisher_checkpoints RENAME TO publisher_checkpoints_away');
    try {
      await fund(env.ledger, ivy.id, 'USDT', '50');
      // Published, but its checkpoint cannot be stored: the batch goes out again after a backoff, and again.
      await eventually(() => expect(retries.filter((m) => m === 'realtime publish failed; retrying').length).toBeGreaterThan(1));
    } finally {
      await env.pool.query('ALTER TABLE publisher_checkpoints_away RENAME TO publisher_checkpoints');
    }
    must(await env.ledger.settleBet(await placeBet(env.ledger, ivy.id, { amount: '1' }), { payout: '0' }));
    const head = formatPosition(await untilVisible(env.store, env.pool));
    await eventually(async () => expect(atOrAfter(await checkpointOf('flaky'), head)).toBe(true));
    // The two deposits and the bet, each published (some more than once); a settlement paying nothing moves no balance.
    expect(new Set(rec.forUser(ivy.id, 'BalanceUpdated').map((r) => r.message.position)).size).toBe(3);
    await flaky.stop();
    await rec.unsubscribe();
  });
});
