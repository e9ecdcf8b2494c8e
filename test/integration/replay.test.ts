import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRates } from '../../src/commands/rates.js';
import { usdFromMinor } from '../../src/domain/money/money.js';
import { userStream } from '../../src/domain/user/user.events.js';
import { walletStream } from '../../src/domain/wallet/wallet.events.js';
import { comparePositions, formatPosition, parsePosition, START, type Position } from '../../src/infra/event-store/event-store.port.js';
import type { Projector } from '../../src/projections/index.js';
import { createLocalBus } from '../../src/infra/bus.js';
import { wageredBefore } from '../../src/realtime/server-event-lookups.js';
import { startLedgerPublisher, type LedgerPublisher } from '../../src/realtime/server-event-publisher.js';
import { replayUserEvents, type ReplayDeps } from '../../src/realtime/socket-replay.js';
import { createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { eventually } from '../support/eventually.js';
import { fund, must, placeBet, recordBus } from '../support/realtime-ledger.js';
import { untilVisible } from '../support/audit-ledger.js';

describe('replay of missed per-user events', () => {
  let env: AuthEnv;
  let projector: Projector;
  let publisher: LedgerPublisher;
  const bus = createLocalBus();
  let rec: Awaited<ReturnType<typeof recordBus>>;
  let deps: ReplayDeps;

  beforeAll(async () => {
    env = await createAuthEnv('replay');
    projector = env.startProjector();
    rec = await recordBus(bus);
    publisher = await startLedgerPublisher({ store: env.store, pool: env.pool, bus, rates: createRates({ pool: env.pool }) });
    deps = { store: env.store, pool: env.pool, rates: createRates({ pool: env.pool }), maxEvents: 1_000 };
  });
  afterAll(async () => {
    await publisher.stop();
    await rec.unsubscribe();
    await env.close();
  });

  /** What live delivery gave the user, in the shape a replay returns. */
  const live = (userId: number) =>
    rec.forUser(userId).map((r) => ({ name: r.name, position: String(r.message.position), payload: r.message.payload }));

  /** A user with a varied history, another user's activity interleaved; returns once live delivery has caught up. */
  const history = async () => {
    const admin = await env.makeUser({ roles: ['Admin'], username: `adm${Date.now().toString(36)}` });
    const [ida, noise] = [await env.makeUser(), await env.makeUser()];
    await fund(env.ledger, ida.id, 'USDT', '3000');
    await fund(env.ledger, noise.id, 'USDT', '10');
    const early = await placeBet(env.ledger, ida.id, { amount: '400', slug: 'slots' }); // settled much later: its placement lies before most cut points
    must(await env.ledger.settleBet(await placeBet(env.ledger, ida.id, { amount: '700' }), { payout: '1400' })); // 700 wagered
    must(await env.ledger.tip({ recipientUserId: ida.id, adminUserId: admin.id, currencyId: 'USDT', amount: '5', notes: 'private note' }));
    must(await env.users.execute(admin.id, { type: 'SetUsername', data: { username: `${admin.username}x` } }, admin.id)); // tips name the admin as they were named then
    must(await env.users.execute(ida.id, { type: 'UpdateProfile', data: { changes: { avatar: '/x.png', isBot: true } } }, admin.id));
    must(await env.ledger.settleBet(await placeBet(env.ledger, noise.id, { amount: '1' }), { payout: '0' }));
    const w = must(
      await env.ledger.requestWithdrawal({
        userId: ida.id,
        currencyId: 'USDT',
        networkId: 'ETH',
        providerId: 'TEST',
        amount: '20',
        recipientAddress: '0x1',
      }),
    ).withdrawal.id;
    must(await env.ledger.approveWithdrawal(w, admin.id));
    must(await env.ledger.settleBet(early, { payout: '0' })); // 1100 wagered: VIP level 1
    const rolled = await placeBet(env.ledger, ida.id, { amount: '1' });
    must(await env.ledger.rollbackBet(rolled));
    must(await env.ledger.tip({ recipientUserId: ida.id, adminUserId: admin.id, currencyId: 'USDT', amount: '1', notes: 'last' }));
    await eventually(() =>
      expect(
        live(ida.id)
          .filter((e) => e.name === 'NotificationEventMessage')
          .map((e) => (e.payload as { type: string }).type)
          .at(-1),
      ).toBe('ADMIN_TIP_RECEIVED'),
    );
    await eventually(() => expect(live(ida.id).filter((e) => e.name === 'BalanceTippedSuccess')).toHaveLength(2));
    expect(
      live(ida.id)
        .filter((e) => e.name === 'BalanceTippedSuccess')
        .map((e) => (e.payload as { fromAdminUsername: string }).fromAdminUsername),
    ).toEqual([admin.username, `${admin.username}x`]);
    return { ida, noise, early };
  };

  it('when a client resumes from any position it saw, then the replay equals what live delivery gave after it, in order, with nothing of other users', async () => {
    const { ida } = await history();
    const all = live(ida.id);
    expect(all.map((e) => e.name)).toContain('ProfileUpdated');
    expect(all.filter((e) => e.name === 'ProfileUpdated').map((e) => e.payload)).toEqual([{ avatar: '/x.png' }, { vipLevel: 1 }]);
    const cuts = [...new Set(all.map((e) => e.position))];
    expect(cuts.length).toBeGreaterThan(10);
    for (const since of cuts) {
      const result = await replayUserEvents(deps, ida.id, parsePosition(since));
      if (!result.recovered) throw new Error(`not recovered from ${since}: ${result.reason}`);
      const expected = all.filter((e) => comparePositions(parsePosition(e.position), parsePosition(since)) > 0);
      expect(result.events).toEqual(expected);
      expect(comparePositions(parsePosition(result.position), parsePosition(all.at(-1)!.position))).toBeGreaterThanOrEqual(0);
    }
    // From before the user existed: the streams' start proves completeness.
    const fromStart = await replayUserEvents(deps, ida.id, START);
    expect(fromStart.recovered && fromStart.events).toEqual(all);
  });

  it('when more than maxEvents per-user events follow the position, then recovered: false so the client reloads; at exactly maxEvents it recovers', async () => {
    const { ida } = await history();
    const all = live(ida.id);
    const since = parsePosition(all[3]!.position);
    const missed = all.filter((e) => comparePositions(parsePosition(e.position), since) > 0).length;
    expect(await replayUserEvents({ ...deps, maxEvents: missed - 1 }, ida.id, since)).toEqual({
      recovered: false,
      reason: 'TOO_MANY_EVENTS',
    });
    const exact = await replayUserEvents({ ...deps, maxEvents: missed }, ida.id, since);
    expect(exact.recovered && exact.events.length).toBe(missed);
    expect(await replayUserEvents({ ...deps, maxEvents: 3 }, ida.id, START)).toEqual({ recovered: false, reason: 'TOO_MANY_EVENTS' });
    // Reading is bounded too: the refusal comes before the user's streams are read to their start.
    let read = 0;
    const store = {
      ...env.store,
      readStreamBackward: async (...args: Parameters<typeof env.store.readStreamBackward>) => {
        const page = await env.store.readStreamBackward(...args);
        read += page.length;
        return page;
      },
    };
    const stored = (await env.store.readStream(walletStream(ida.id))).length + (await env.store.readStream(userStream(ida.id))).length;
    expect(await replayUserEvents({ ...deps, store, maxEvents: 1 }, ida.id, START)).toEqual({
      recovered: false,
      reason: 'TOO_MANY_EVENTS',
    });
    expect(stored).toBeGreaterThan(10);
    expect(read).toBeLessThan(stored);
  });

  it('when the position lies beyond anything the store holds, then recovered: false (unknown position)', async () => {
    const head = await env.store.headPosition();
    const ahead: Position = { commit: head.commit + 1_000_000n, prepare: 0n };
    expect(await replayUserEvents(deps, 1, ahead)).toEqual({ recovered: false, reason: 'UNKNOWN_POSITION' });
  });

  it('when a user has nothing after the position, then an empty recovery up to the head', async () => {
    const quiet = await env.makeUser();
    const head = await untilVisible(env.store, env.pool);
    const result = await replayUserEvents(deps, quiet.id, head);
    expect(result).toEqual({ recovered: true, events: [], position: formatPosition(head) });
  });

  it('wagered totals are exact whether the stats read model is behind, ahead of or without a checkpoint', async () => {
    const zed = await env.makeUser();
    await fund(env.ledger, zed.id, 'USDT', '100');
    const settle = async (amount: string) => {
      must(await env.ledger.settleBet(await placeBet(env.ledger, zed.id, { amount }), { payout: '0' }));
      return (await env.store.readStreamBackward(walletStream(zed.id), { maxCount: 1 }))[0]!.position;
    };
    const p1 = await settle('1.5');
    const p2 = await settle('2.25');
    const p3 = await settle('4');
    const end = { commit: 2n ** 62n, prepare: 0n };
    const at = async (p: Position) => usdFromMinor(await wageredBefore(env, zed.id, p));
    const check = async (total: string) => {
      expect(await at(p1)).toBe('0');
      expect(await at(p2)).toBe('1.5');
      expect(await at(p3)).toBe('3.75');
      expect(await at(end)).toBe(total);
    };
    await projector.waitFor(p3); // the read model has all three: positions before its checkpoint subtract
    await check('7.75');
    await projector.stop();
    const p4 = await settle('0.25'); // the read model misses this one: positions after the checkpoint add
    expect(await at(p4)).toBe('7.75');
    await check('8');
    await env.pool.query(`DELETE FROM projection_checkpoints WHERE name = 'user-stats-usd'`); // no checkpoint: the stream alone
    await check('8');
  });
});
