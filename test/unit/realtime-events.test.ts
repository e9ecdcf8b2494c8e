import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DecimalString } from '../../src/domain/money/money.js';
import { userStream } from '../../src/domain/user/user.events.js';
import { loadConfig } from '../../src/infra/config.js';
import type { RecordedEvent } from '../../src/infra/event-store/event-store.port.js';
import { notificationId, notificationsOf } from '../../src/domain/wallet/wallet.notifications.js';
import { notificationsProjection } from '../../src/read-models/notifications/notifications.projection.js';
import {
  compareDecimal,
  DEFAULT_FEED_SETTINGS,
  FEED_MAX,
  feedEventsOf,
  isBigWin,
  isHighRoller,
  isLuckyWin,
  publicBetOf,
  type FeedSettings,
  type PublicShortUser,
} from '../../src/realtime/feeds.js';
import {
  betRecordOf,
  placementOf,
  serverEventsOf,
  settledBetOf,
  type BetPlacement,
  type BetRecord,
  type EventLookups,
} from '../../src/realtime/server-events.js';
import { LIVE_BETS_ROOM, liveDropRoom } from '../../src/shared/rooms.js';
import { vipLevelOf } from '../../src/domain/user/vip.js';
import { GAME, recorded, WalletScript } from './projections/wallet-fixtures.js';

const dec = (s: string): DecimalString => s as DecimalString;
const RATES: Record<string, string> = { BTC: '50000', USDT: '1', ETH: '2000.5' };

/** Lookups over what the test knows: placements of the given events, fixed rates, one admin name. */
const lookupsFor = (events: readonly RecordedEvent[], over: Partial<EventLookups> = {}): EventLookups => {
  const placements = new Map<string, BetPlacement>();
  for (const e of events) {
    const p = placementOf(e);
    if (p) placements.set(p.betId, p);
  }
  return {
    usdRate: (c) => dec(RATES[c] ?? '0'),
    tipperUsername: (eventId) => (events.find((e) => e.id === eventId)?.data.adminUserId === 1 ? 'boss' : null),
    placement: (betId) => placements.get(betId),
    ...over,
  };
};

const names = (events: readonly { name: string }[]) => events.map((e) => e.name);

const userEvent = (userId: number, type: string, data: Record<string, unknown>, prepare = 50n): RecordedEvent => ({
  id: randomUUID(),
  streamId: userStream(userId),
  revision: 1n,
  position: { commit: 100n, prepare },
  type,
  data: { ...data, at: '2026-01-01T00:00:00.000Z' },
  metadata: {},
  createdAt: new Date(0),
});

describe('per-user server events of ledger events', () => {
  it('when a deposit completes, then BalanceUpdated with balance, USD value, source and position, and a DEPOSIT_COMPLETED notification', () => {
    const w = new WalletScript();
    const events = recorded([w.depositRequested(5, 'd1', 'BTC', '0.5', '25000'), w.depositCompleted(5, 'd1', 'BTC', '0.5', '25000')]);
    expect(serverEventsOf(events[0]!, lookupsFor(events))).toEqual([]);
    const out = serverEventsOf(events[1]!, lookupsFor(events));
    expect(names(out)).toEqual(['BalanceUpdated', 'NotificationEventMessage']);
    expect(out[0]).toEqual({
      name: 'BalanceUpdated',
      userId: 5,
      position: '100/2',
      payload: { currencyId: 'BTC', amount: '0.5', usdAmount: '25000', source: 'DEPOSIT' },
    });
    expect(out[1]).toEqual({
      name: 'NotificationEventMessage',
      userId: 5,
      position: '100/2',
      payload: {
        id: notificationId(events[1]!.id, 'DEPOSIT_COMPLETED'),
        type: 'DEPOSIT_COMPLETED',
        payload: { depositId: 'd1', amount: '0.5', currencyId: 'BTC', usdAmount: '25000' },
      },
    });
  });

  it('when an admin tips, then BalanceUpdated, BalanceTippedSuccess naming the admin, and an ADMIN_TIP_RECEIVED notification without the admin notes', () => {
    const w = new WalletScript();
    const events = recorded([w.tip(8, 41, 'add', 'USDT', '12.5', '12.5')]);
    const out = serverEventsOf(events[0]!, lookupsFor(events));
    expect(names(out)).toEqual(['BalanceUpdated', 'BalanceTippedSuccess', 'NotificationEventMessage']);
    expect(out[1]).toMatchObject({ userId: 8, payload: { amount: '12.5', currencyId: 'USDT', fromAdminUsername: 'boss' } });
    expect(out[2]!.payload).toEqual({
      id: notificationId(events[0]!.id, 'ADMIN_TIP_RECEIVED'),
      type: 'ADMIN_TIP_RECEIVED',
      payload: { tipId: 41, amount: '12.5', currencyId: 'USDT', usdAmount: '12.5' },
    });
    expect(JSON.stringify(out)).not.toContain('tip 41'); // the notes
    expect(new Set(out.map((e) => e.position)).size).toBe(1);
  });

  it('when a bet is placed and settled, then MyBets carries the whole bet each time: CREATED (multiplier 0), then SETTLED with payout and multiplier', () => {
    const w = new WalletScript();
    const events = recorded([
      w.depositCompleted(3, 'd', 'BTC', '1', '50000'),
      w.betPlaced(3, 'b1', 'BTC', '0.01', '500'),
      w.betSettled(3, 'b1', 'BTC', '0.025', '1250', '2.5'),
    ]);
    const lookups = lookupsFor(events);
    const placed = serverEventsOf(events[1]!, lookups);
    expect(names(placed)).toEqual(['BalanceUpdated', 'MyBets']);
    const [createdBet] = placed[1]!.payload as BetRecord[];
    expect(createdBet).toEqual({
      id: 'b1',
      userId: 3,
      roundId: 'round-b1',
      gameId: 7,
      currencyId: 'BTC',
      amount: '0.01',
      usdAmount: '500',
      payout: '0',
      usdPayout: '0',
      status: 'CREATED',
      multiplier: 0,
      errorDetails: null,
      commissionGgrUsdAmount: '0',
      commissionGgrPercent: '0',
      gameIdentity: { ...GAME, images: null },
      createdAt: events[1]!.data.at,
      updatedAt: events[1]!.data.at,
      settledAt: null,
    });
    const settled = serverEventsOf(events[2]!, lookups);
    expect(names(settled)).toEqual(['BalanceUpdated', 'MyBets']);
    expect(settled[0]!.payload).toMatchObject({ amount: '1.015', source: 'BET_PAYOUT' });
    expect((settled[1]!.payload as BetRecord[])[0]).toMatchObject({
      id: 'b1',
      status: 'SETTLED',
      payout: '0.025',
      usdPayout: '1250',
      multiplier: 2.5,
      createdAt: events[1]!.data.at,
      settledAt: events[2]!.data.at,
    });
    expect(settledBetOf(events[2]!, lookups)).toEqual((settled[1]!.payload as BetRecord[])[0]);
    expect(settledBetOf(events[1]!, lookups)).toBeUndefined();
  });

  it('when a bet settles with a zero payout, then MyBets but no BalanceUpdated (the balance did not change)', () => {
    const w = new WalletScript();
    const events = recorded([
      w.depositCompleted(3, 'd', 'USDT', '10', '10'),
      w.betPlaced(3, 'b', 'USDT', '2', '2'),
      w.betSettled(3, 'b', 'USDT', '0', '0', '0'),
    ]);
    const out = serverEventsOf(events[2]!, lookupsFor(events));
    expect(names(out)).toEqual(['MyBets']);
    expect((out[0]!.payload as BetRecord[])[0]).toMatchObject({ status: 'SETTLED', payout: '0', multiplier: 0 });
  });

  it('when a bet is rolled back or errors, then MyBets with ROLLBACK / ERROR (and the error details) and the refund as BalanceUpdated', () => {
    const w = new WalletScript();
    const deposit = w.depositCompleted(3, 'd', 'USDT', '10', '10');
    const a = w.betPlaced(3, 'b1', 'USDT', '1', '1');
    const b = w.betPlaced(3, 'b2', 'USDT', '1', '1');
    const events = recorded([
      deposit,
      a,
      b,
      w.betRolledBack(3, 'b1', 'USDT', '1', a.transactionId),
      w.betErrored(3, 'b2', 'USDT', '1', b.transactionId, 'rng fault'),
    ]);
    const lookups = lookupsFor(events);
    const rolled = serverEventsOf(events[3]!, lookups);
    expect(rolled.map((e) => [e.name, (e.payload as { source?: string }).source ?? (e.payload as BetRecord[])[0]!.status])).toEqual([
      ['BalanceUpdated', 'ROLLBACK_BET'],
      ['MyBets', 'ROLLBACK'],
    ]);
    expect((rolled[1]!.payload as BetRecord[])[0]).toMatchObject({ id: 'b1', multiplier: 0, payout: '0' });
    const errored = serverEventsOf(events[4]!, lookups);
    expect((errored[1]!.payload as BetRecord[])[0]).toMatchObject({
      id: 'b2',
      status: 'ERROR',
      errorDetails: 'rng fault',
      usdAmount: '1',
      multiplier: 0,
    });
  });

  it('when a bet placement is unknown, then the bet event gives no MyBets (never a half-empty bet) but still its BalanceUpdated', () => {
    const w = new WalletScript();
    const events = recorded([w.betPlaced(3, 'b', 'USDT', '0', '0'), w.betSettled(3, 'b', 'USDT', '3', '3', '3')]);
    expect(names(serverEventsOf(events[1]!, lookupsFor([])))).toEqual(['BalanceUpdated']);
  });

  it('when a withdrawal is approved, rejected or completed, then a notification each; a withdrawal request gives only BalanceUpdated', () => {
    const w = new WalletScript();
    const events = recorded([
      w.depositCompleted(4, 'd', 'ETH', '3', '6000'),
      w.withdrawalRequested(4, 'w1', 'ETH', '1', '2000'),
      w.withdrawalApproved(4, 'w1'),
      w.withdrawalCompleted(4, 'w1', 'ETH', '1'),
      w.withdrawalRequested(4, 'w2', 'ETH', '1', '2000'),
      w.withdrawalRejected(4, 'w2', 'ETH', '1', 'address on a blocklist'),
      w.withdrawalFailed(4, 'w2'),
    ]);
    const out = events.map((e) =>
      serverEventsOf(e, lookupsFor(events)).map((x) =>
        x.name === 'NotificationEventMessage' ? (x.payload as { type: string }).type : x.name,
      ),
    );
    expect(out).toEqual([
      ['BalanceUpdated', 'DEPOSIT_COMPLETED'],
      ['BalanceUpdated'],
      ['WITHDRAWAL_APPROVED'],
      ['WITHDRAWAL_COMPLETED'],
      ['BalanceUpdated'],
      ['BalanceUpdated', 'WITHDRAWAL_REJECTED'],
      [],
    ]);
    expect(notificationsOf(events[5]!)[0]!.payload).toEqual({
      withdrawalId: 'w2',
      amount: '1',
      currencyId: 'ETH',
      rejectReason: 'address on a blocklist',
    });
    expect(notificationsOf(events[3]!)[0]!.payload).toEqual({
      withdrawalId: 'w1',
      amount: '1',
      currencyId: 'ETH',
      usdAmount: '2000',
      txHash: '0xww1',
    });
  });

  it('when a deduction or a leaderboard prize is booked, then BALANCE_DEDUCTED / LEADERBOARD_PRIZE notifications', () => {
    const w = new WalletScript();
    const events = recorded([w.prize(6, 'lbu-1', 'USDT', '50', '50'), w.tip(6, 2, 'deduct', 'USDT', '5', '5')]);
    expect(notificationsOf(events[0]!)).toEqual([
      {
        id: notificationId(events[0]!.id, 'LEADERBOARD_PRIZE'),
        userId: 6,
        type: 'LEADERBOARD_PRIZE',
        position: '100/1',
        createdAt: events[0]!.data.at,
        payload: { leaderboardId: 'lb-1', amount: '50', currencyId: 'USDT', usdAmount: '50' },
      },
    ]);
    expect(notificationsOf(events[1]!).map((n) => [n.type, n.payload])).toEqual([
      ['BALANCE_DEDUCTED', { tipId: 2, amount: '5', currencyId: 'USDT' }],
    ]);
  });

  it('when an admin sets the KYC level, then ProfileUpdated {kycLevel} goes to the player', () => {
    const set = userEvent(9, 'KycLevelSet', { level: 'LEVEL_2', verificationPending: true, adminUserId: 1 });
    expect(serverEventsOf(set, lookupsFor([]))).toEqual([
      { name: 'ProfileUpdated', userId: 9, position: '100/50', payload: { kycLevel: 'LEVEL_2' } },
    ]);
  });

  it('when the user stream changes username, public profile keys or MFA, then ProfileUpdated patches only the public fields', () => {
    expect(serverEventsOf(userEvent(9, 'UsernameSet', { username: 'neo', adminUserId: null }), lookupsFor([]))).toEqual([
      { name: 'ProfileUpdated', userId: 9, position: '100/50', payload: { username: 'neo' } },
    ]);
    const mixed = serverEventsOf(
      userEvent(9, 'ProfileUpdated', {
        changes: { avatar: '/a.png', isPrivate: true, isTest: true, customMinAffiliateLevel: 3 },
        adminUserId: 1,
      }),
      lookupsFor([]),
    );
    expect(mixed.map((e) => e.payload)).toEqual([{ avatar: '/a.png', isPrivate: true }]);
    expect(
      serverEventsOf(userEvent(9, 'ProfileUpdated', { changes: { isTest: true, isBot: false }, adminUserId: 1 }), lookupsFor([])),
    ).toEqual([]);
    expect(serverEventsOf(userEvent(9, 'MfaEnabled', {}), lookupsFor([]))[0]!.payload).toEqual({ mfaEnabled: true });
    expect(serverEventsOf(userEvent(9, 'RoleGranted', { role: 'Admin', adminUserId: 1 }), lookupsFor([]))).toEqual([]);
    expect(serverEventsOf(userEvent(9, 'UserRegistered', { userId: 9 }), lookupsFor([]))).toEqual([]);
  });

  it('when a settled bet takes the total wagered across a VIP threshold, then ProfileUpdated {vipLevel}; within a level, none', () => {
    const w = new WalletScript();
    const events = recorded([
      w.depositCompleted(3, 'd', 'USDT', '5000', '5000'),
      w.betPlaced(3, 'b', 'USDT', '30', '30'),
      w.betSettled(3, 'b', 'USDT', '0', '0', '0'),
    ]);
    const settle = events[2]!;
    const at = (before: string) =>
      serverEventsOf(settle, lookupsFor(events, { wageredBefore: (id) => (id === settle.id ? dec(before) : undefined) }));
    expect(names(at('0'))).toEqual(['MyBets']);
    expect(at('969.99999999').find((e) => e.name === 'ProfileUpdated')).toBeUndefined(); // 999.99999999 < 1000
    expect(at('970').find((e) => e.name === 'ProfileUpdated')).toEqual({
      name: 'ProfileUpdated',
      userId: 3,
      position: '100/3',
      payload: { vipLevel: 1 },
    });
    expect(at('9999.5').find((e) => e.name === 'ProfileUpdated')!.payload).toEqual({ vipLevel: 2 });
    expect(at('1000').find((e) => e.name === 'ProfileUpdated')).toBeUndefined();
    expect(names(serverEventsOf(settle, lookupsFor(events)))).toEqual(['MyBets']); // no VIP total known: no guess
  });

  it('vip levels follow the thresholds exactly', () => {
    expect(
      ['0', '999.99999999', '1000', '9999.99999999', '10000', '250000', '999999', '1000000', '5000000'].map((v) => vipLevelOf(dec(v))),
    ).toEqual([0, 0, 1, 1, 2, 4, 4, 5, 5]);
  });

  it('when events belong to no user stream or are not wallet or user events, then nothing', () => {
    const e: RecordedEvent = { ...userEvent(1, 'UsernameSet', { username: 'x' }), streamId: 'limits-1' };
    expect(serverEventsOf(e, lookupsFor([]))).toEqual([]);
    expect(serverEventsOf({ ...e, streamId: 'wallet-1', type: 'Unknown' }, lookupsFor([]))).toEqual([]);
  });
});

describe('notifications projection', () => {
  it('when notification events are projected, then one row each with the very id and payload that is pushed; rebuild-stable ids', () => {
    const w = new WalletScript();
    const events = recorded([
      w.depositCompleted(2, 'd', 'USDT', '10', '10'),
      w.betPlaced(2, 'b', 'USDT', '1', '1'),
      w.tip(2, 5, 'add', 'USDT', '1', '1'),
    ]);
    const handled = events.filter((e) => notificationsProjection.handles.includes(e.type));
    const [insert, ...rest] = notificationsProjection.project(handled);
    expect(rest).toEqual([]);
    expect(insert!.text).toMatch(/^INSERT INTO notifications .* ON CONFLICT \(id\) DO NOTHING$/s);
    const rows = JSON.parse(String(insert!.values[0])) as Record<string, unknown>[];
    const pushed = events
      .flatMap((e) => serverEventsOf(e, lookupsFor(events)))
      .filter((e) => e.name === 'NotificationEventMessage')
      .map((e) => e.payload as { id: string; type: string; payload: unknown });
    expect(rows.map((r) => [r.id, r.type, r.payload, r.user_id, r.position, r.position_commit, r.position_prepare])).toEqual([
      [pushed[0]!.id, 'DEPOSIT_COMPLETED', pushed[0]!.payload, 2, '100/1', '100', '1'],
      [pushed[1]!.id, 'ADMIN_TIP_RECEIVED', pushed[1]!.payload, 2, '100/3', '100', '3'],
    ]);
    expect(notificationsProjection.project(handled)).toEqual([insert]);
    expect(notificationId(events[0]!.id, 'DEPOSIT_COMPLETED')).not.toBe(notificationId(events[2]!.id, 'DEPOSIT_COMPLETED'));
    expect(notificationsProjection.project([])).toEqual([]);
  });
});

const bet = (over: Partial<BetRecord> & { id: string }): BetRecord => ({
  userId: 1,
  roundId: 'r',
  gameId: 1,
  currencyId: 'USDT',
  amount: '1',
  payout: '0',
  usdAmount: '1',
  usdPayout: '0',
  status: 'SETTLED',
  multiplier: 0,
  errorDetails: null,
  commissionGgrUsdAmount: '0',
  commissionGgrPercent: '0',
  gameIdentity: { ...GAME, images: null },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  settledAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe('public feeds', () => {
  const S: FeedSettings = { bigWinMinUsd: '100', highRollerMinUsd: '50', luckyWinMinMultiplier: '10', luckyWinMinStakeUsd: '1' };

  it('defaults equal the configuration defaults', () => {
    expect(DEFAULT_FEED_SETTINGS).toEqual(loadConfig({}).feeds);
  });

  it('compares decimals exactly, whatever their scales', () => {
    expect(compareDecimal('100', '99.99999999999999999999')).toBe(1);
    expect(compareDecimal('0.1', '0.10')).toBe(0);
    expect(compareDecimal('2.5', '10')).toBe(-1);
    expect(compareDecimal('-1', '0')).toBe(-1);
  });

  it('membership is at-or-above each threshold, exact to the last digit', () => {
    expect(isBigWin(bet({ id: 'a', usdPayout: '100' }), S)).toBe(true);
    expect(isBigWin(bet({ id: 'a', usdPayout: '99.99999999' }), S)).toBe(false);
    expect(isHighRoller(bet({ id: 'a', usdAmount: '50' }), S)).toBe(true);
    expect(isHighRoller(bet({ id: 'a', usdAmount: '49.99999999' }), S)).toBe(false);
    // 0.3 * 10 = 3 exactly (a float would say 0.30000000000000004 * 10 > 3)
    expect(isLuckyWin(bet({ id: 'a', amount: '0.3', payout: '3', usdAmount: '1' }), S)).toBe(true);
    expect(isLuckyWin(bet({ id: 'a', amount: '0.3', payout: '2.999999', usdAmount: '1' }), S)).toBe(false);
    expect(isLuckyWin(bet({ id: 'a', amount: '0.3', payout: '30', usdAmount: '0.99999999' }), S)).toBe(false); // stake too small
    expect(
      isLuckyWin(bet({ id: 'a', amount: '0.00000001', payout: '1', usdAmount: '1' }), { ...S, luckyWinMinMultiplier: '100000000' }),
    ).toBe(true);
  });

  it('a batch gives one array per feed, ranked best first with ties newest first, to the right rooms; empty feeds are not sent', () => {
    const bets = [
      bet({ id: 'small' }),
      bet({
        id: 'whale',
        amount: '500',
        usdAmount: '500',
        payout: '600',
        usdPayout: '600',
        gameIdentity: { ...GAME, slug: 'crash', images: null },
      }),
      bet({ id: 'lucky', amount: '2', usdAmount: '2', payout: '200', usdPayout: '200' }),
      bet({ id: 'luckier', amount: '1', usdAmount: '1', payout: '150', usdPayout: '150' }),
      bet({ id: 'tie', amount: '500', usdAmount: '500', payout: '0', usdPayout: '0' }),
    ];
    const out = feedEventsOf(bets, S);
    const ids = (name: string, room = LIVE_BETS_ROOM) => out.find((e) => e.name === name && e.room === room)?.payload.map((b) => b.id);
    expect(out.map((e) => [e.name, e.room])).toEqual([
      ['LatestBets', LIVE_BETS_ROOM],
      ['BigWins', LIVE_BETS_ROOM],
      ['HighRollers', LIVE_BETS_ROOM],
      ['LuckyWins', LIVE_BETS_ROOM],
      ['LatestBets', liveDropRoom('dice')],
      ['LatestBets', liveDropRoom('crash')],
    ]);
    expect(ids('LatestBets')).toEqual(['tie', 'luckier', 'lucky', 'whale', 'small']);
    expect(ids('BigWins')).toEqual(['whale', 'lucky', 'luckier']);
    expect(ids('HighRollers')).toEqual(['tie', 'whale']); // equal stakes: the newer first
    expect(ids('LuckyWins')).toEqual(['luckier', 'lucky']); // 150x before 100x
    expect(ids('LatestBets', liveDropRoom('dice'))).toEqual(['tie', 'luckier', 'lucky', 'small']);
    expect(ids('LatestBets', liveDropRoom('crash'))).toEqual(['whale']);
    expect(feedEventsOf([bet({ id: 'x' })], S).map((e) => e.name)).toEqual(['LatestBets', 'LatestBets']);
    expect(feedEventsOf([], S)).toEqual([]);
  });

  it('a feed array holds at most FEED_MAX bets: the newest (LatestBets) or the best', () => {
    const many = Array.from({ length: FEED_MAX + 5 }, (_, i) => bet({ id: `b${i}`, usdPayout: String(100 + i), payout: String(100 + i) }));
    const out = feedEventsOf(many, S);
    expect(out.find((e) => e.name === 'LatestBets')!.payload).toHaveLength(FEED_MAX);
    expect(out.find((e) => e.name === 'LatestBets')!.payload[0]!.id).toBe(`b${FEED_MAX + 4}`);
    expect(out.find((e) => e.name === 'BigWins')!.payload.at(-1)!.id).toBe('b5');
  });

  it("a private user's (or an unknown user's) bet shows no id, name or avatar; a public one shows the short user and never an e-mail", () => {
    const user: PublicShortUser = { id: 4, username: 'ann', isPrivate: false, avatar: '/ann.png', vipLevel: 2, isBanned: false };
    const shown = publicBetOf(bet({ id: 'p', userId: 4 }), user);
    expect(shown).toMatchObject({ userId: 4, user });
    const hidden = publicBetOf(bet({ id: 'q', userId: 4 }), { ...user, isPrivate: true });
    expect(hidden.userId).toBeNull();
    expect(hidden.user).toEqual({ id: null, username: null, isPrivate: true, avatar: '', vipLevel: 2, isBanned: false });
    expect(JSON.stringify(hidden)).not.toMatch(/"ann"|ann\.png|"userId":4|"id":4/);
    expect(publicBetOf(bet({ id: 'r', userId: 4 }), undefined)).toMatchObject({ userId: null, user: { username: null, isPrivate: true } });
    expect(JSON.stringify(shown)).not.toMatch(/email|@/i);
  });
});

describe('bet records', () => {
  it("carry the placement's game identity and stake on every status", () => {
    const w = new WalletScript();
    const placed = recorded([w.betPlaced(2, 'z', 'USDT', '0', '0')])[0]!;
    const p = placementOf(placed)!;
    expect(p).toMatchObject({ betId: 'z', userId: 2, gameIdentity: GAME, placedAt: placed.data.at });
    expect(betRecordOf({ type: 'BetRolledBack', data: { betId: 'z', at: '2026-02-02T00:00:00.000Z' } } as never, p)).toMatchObject({
      status: 'ROLLBACK',
      updatedAt: '2026-02-02T00:00:00.000Z',
      createdAt: p.placedAt,
    });
  });
});
