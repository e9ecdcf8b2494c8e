import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FEED_SETTINGS, compareDecimal } from '../../src/realtime/feeds.js';
import { liveHandlers } from '../../src/realtime/handlers/live.js';
import type { BetRecord } from '../../src/realtime/server-events.js';
import { createRealtimeEnv, type RealtimeEnv, type TestClient } from '../support/realtime-env.js';
import { fund, must, placeBet, projectedUser } from '../support/realtime-ledger.js';

/**
 * Spec "Events", server-to-client rows LatestBets, BigWins, HighRollers, LuckyWins and MyBets, end to
 * end: bets go through the ledger, the publisher follows the store, the gateway delivers to real
 * socket.io clients. Thresholds are the production defaults (FEED_* unset): big win at 100 USD
 * payout, high roller at 100 USD stake, lucky win at 10x with a stake of at least 1 USD.
 */

type FeedBet = BetRecord & { user: { id: number | null; username: string | null; isPrivate: boolean } };
const FEEDS = ['LatestBets', 'BigWins', 'HighRollers', 'LuckyWins'] as const;

let env: RealtimeEnv;
let bettor: Awaited<ReturnType<RealtimeEnv['signedIn']>>;

beforeAll(async () => {
  env = await createRealtimeEnv('rt_feeds', { handlers: () => liveHandlers() });
  bettor = await env.signedIn();
  await projectedUser(env.pool, bettor.user.id);
  await fund(env.ledger, bettor.user.id, 'USDT', '100000');
});
afterEach(() => env.disconnectAll());
afterAll(async () => {
  await env?.close();
});

const settled = async (o: { amount: string; payout: string; slug?: string }): Promise<string> => {
  const id = await placeBet(env.ledger, bettor.user.id, { amount: o.amount, usdAmount: o.amount, ...(o.slug ? { slug: o.slug } : {}) });
  must(await env.ledger.settleBet(id, { payout: o.payout, usdPayout: o.payout }));
  return id;
};

const feedIds = (c: TestClient, event: string): string[] => c.all(event).flatMap((r) => (r.payload as FeedBet[]).map((b) => b.id));

/**
 * Once the client has the LatestBets naming `betId`, a probe published after it on the same bus
 * connection: when the probe is in, every feed event of that batch is in too.
 */
let probes = 0;
const settledIn = async (clients: TestClient[], betId: string): Promise<void> => {
  await Promise.all(clients.map((c) => c.waitFor<FeedBet[]>('LatestBets', (p) => p.some((b) => b.id === betId))));
  probes += 1;
  const mark = `probe-${probes}`;
  await env.bus.publish('Probe', { payload: { mark } });
  await Promise.all(clients.map((c) => c.waitFor<{ mark: string }>('Probe', (p) => p.mark === mark)));
};

/** A probe to `clients` after the publisher has surely gone past the bet (for clients that get no feed). */
const quietAfter = async (witness: TestClient, betId: string, others: TestClient[]): Promise<void> => {
  await settledIn([witness], betId);
  const mark = `probe-${++probes}`;
  await env.bus.publish('Probe', { payload: { mark } });
  await Promise.all(others.map((c) => c.waitFor<{ mark: string }>('Probe', (p) => p.mark === mark)));
};

const joinedLiveBets = async (opts: Parameters<RealtimeEnv['connect']>[0] = {}): Promise<TestClient> => {
  const c = await env.connect(opts);
  if (opts.token) await c.waitFor('AuthSuccess');
  expect(await c.ack('LiveBetsJoin')).toMatchObject({ status: 200 });
  return c;
};

describe('LatestBets (LiveBetsJoin / LiveBetsLeave / LiveDropJoin)', () => {
  it('when a bet is settled, then an anonymous socket in the live-bets room gets it in LatestBets with the public user and no private field', async () => {
    const anon = await joinedLiveBets();
    const id = await settled({ amount: '2', payout: '3' });
    await settledIn([anon], id);
    const bet = anon
      .all('LatestBets')
      .flatMap((r) => r.payload as FeedBet[])
      .find((b) => b.id === id)!;
    expect(bet).toMatchObject({
      id,
      userId: bettor.user.id,
      currencyId: 'USDT',
      amount: '2',
      payout: '3',
      usdAmount: '2',
      usdPayout: '3',
      status: 'SETTLED',
      gameIdentity: { slug: 'dice' },
      user: { id: bettor.user.id, username: bettor.user.username, isPrivate: false },
    });
    expect(JSON.stringify(bet)).not.toContain(bettor.user.email);
  });

  it('when a socket has not joined, or has left, then it gets no LatestBets', async () => {
    const inside = await joinedLiveBets();
    const leaver = await joinedLiveBets();
    const never = await env.connect();
    expect(await leaver.ack('LiveBetsLeave')).toMatchObject({ status: 200 });
    const id = await settled({ amount: '1', payout: '0' });
    await quietAfter(inside, id, [leaver, never]);
    expect(feedIds(leaver, 'LatestBets')).not.toContain(id);
    expect(never.all('LatestBets')).toEqual([]);
  });

  it("when a socket joined a game's live drop, then its LatestBets hold only that game's bets", async () => {
    const room = await env.connect();
    expect(await room.ack('LiveDropJoin', { slug: 'plinko' })).toMatchObject({ status: 200 });
    const witness = await joinedLiveBets();
    const dice = await settled({ amount: '1', payout: '2', slug: 'dice' });
    const plinko = await settled({ amount: '1', payout: '2', slug: 'plinko' });
    await settledIn([room], plinko);
    await settledIn([witness], dice);
    for (const r of room.all('LatestBets')) for (const b of r.payload as FeedBet[]) expect(b.gameIdentity.slug).toBe('plinko');
    expect(feedIds(room, 'LatestBets')).toContain(plinko);
    expect(feedIds(room, 'LatestBets')).not.toContain(dice);
  });
});

describe('BigWins, HighRollers, LuckyWins around their thresholds', () => {
  it.each([
    // name, the feeds it is in besides LatestBets, amount, payout (USDT, 1 USD each)
    ['just below every threshold', [], '99.99', '99.99'],
    ['a 100 USD stake paid 100 USD', ['BigWins', 'HighRollers'], '100', '100'],
    ['10x on a 1 USD stake', ['LuckyWins'], '1', '10'],
    ['9.99x on a 1 USD stake', [], '1', '9.99'],
    ['100x on a 0.99 USD stake (too small for LuckyWins)', [], '0.99', '99'],
    ['15x on 10 USD, paying 150 USD', ['BigWins', 'LuckyWins'], '10', '150'],
    ['a lost 500 USD stake', ['HighRollers'], '500', '0'],
  ] as const)('when a bet is %s, then besides LatestBets it is in exactly %j', async (_name, expected, amount, payout) => {
    const c = await joinedLiveBets();
    const id = await settled({ amount, payout });
    await settledIn([c], id);
    const inFeeds = FEEDS.filter((f) => feedIds(c, f).includes(id));
    expect(inFeeds).toEqual(['LatestBets', ...expected]);
  });

  it('whatever the batching, every ranked feed array arrives best first and holds only bets over its threshold', async () => {
    const c = await joinedLiveBets();
    const ids = await Promise.all([
      settled({ amount: '120', payout: '240' }),
      settled({ amount: '300', payout: '3000' }),
      settled({ amount: '5', payout: '500' }),
      settled({ amount: '150', payout: '0' }),
      settled({ amount: '2', payout: '40' }),
    ]);
    for (const id of ids) await settledIn([c], id);
    const arrays = (event: string) => c.all(event).map((r) => r.payload as FeedBet[]);
    const s = DEFAULT_FEED_SETTINGS;
    for (const a of arrays('BigWins')) {
      a.forEach((b) => expect(compareDecimal(b.usdPayout, s.bigWinMinUsd)).toBeGreaterThanOrEqual(0));
      a.slice(1).forEach((b, i) => expect(compareDecimal(a[i]!.usdPayout, b.usdPayout)).toBeGreaterThanOrEqual(0));
    }
    for (const a of arrays('HighRollers')) {
      a.forEach((b) => expect(compareDecimal(b.usdAmount, s.highRollerMinUsd)).toBeGreaterThanOrEqual(0));
      a.slice(1).forEach((b, i) => expect(compareDecimal(a[i]!.usdAmount, b.usdAmount)).toBeGreaterThanOrEqual(0));
    }
    // 300 -> 3000 is 10x, 5 -> 500 is 100x, 2 -> 40 is 20x: all lucky; 120 -> 240 (2x) and the loss are not.
    expect(
      feedIds(c, 'LuckyWins')
        .filter((id) => ids.includes(id))
        .sort(),
    ).toEqual([ids[1]!, ids[2]!, ids[4]!].sort());
    expect(
      feedIds(c, 'BigWins')
        .filter((id) => ids.includes(id))
        .sort(),
    ).toEqual([ids[0]!, ids[1]!, ids[2]!].sort());
    expect(
      feedIds(c, 'HighRollers')
        .filter((id) => ids.includes(id))
        .sort(),
    ).toEqual([ids[0]!, ids[1]!, ids[3]!].sort());
  });
});

describe('MyBets', () => {
  it("when a bet is placed and settled, then each of the bettor's sockets gets MyBets CREATED then SETTLED with the ledger position, and nobody else does", async () => {
    const other = await env.signedIn();
    const mine = [
      await joinedLiveBets({ token: bettor.accessToken }),
      await joinedLiveBets({ cookies: { access_token: bettor.accessToken } }),
    ];
    const theirs = await joinedLiveBets({ token: other.accessToken });
    const anon = await joinedLiveBets();

    const id = await settled({ amount: '4', payout: '8' });
    for (const c of mine) await c.waitFor<FeedBet[]>('MyBets', (p) => p.some((b) => b.id === id && b.status === 'SETTLED'));
    await settledIn([...mine, theirs, anon], id);

    for (const c of mine) {
      const got = c.all('MyBets').filter((r) => (r.payload as FeedBet[]).some((b) => b.id === id));
      expect(got.map((r) => (r.payload as FeedBet[]).map((b) => b.status))).toEqual([['CREATED'], ['SETTLED']]);
      expect((got[1]!.payload as FeedBet[])[0]).toMatchObject({ id, amount: '4', payout: '8', usdPayout: '8', userId: bettor.user.id });
      const [p0, p1] = got.map((r) => (r.meta as { position: string }).position);
      expect(p0).toMatch(/^\d+\/\d+$/);
      expect(p0).not.toBe(p1);
    }
    expect(mine[0]!.all('MyBets').map((r) => r.meta)).toEqual(mine[1]!.all('MyBets').map((r) => r.meta));
    // The same bet reached the public feeds of everyone in the room, but MyBets only the bettor.
    for (const c of [theirs, anon]) {
      expect(feedIds(c, 'LatestBets')).toContain(id);
      expect(c.all('MyBets')).toEqual([]);
    }
  });
});
