import { Map as IMap } from 'immutable';
import { describe, expect, it } from 'vitest';
import { COOLING_OFF_MS, effectiveLimit, nextLimit } from '../../src/domain/limits/gambling-limits.js';
import { decide } from '../../src/domain/limits/limits.decide.js';
import { initialLimitsState } from '../../src/domain/limits/limits.state.js';
import { evolve } from '../../src/domain/wallet/wallet.evolve.js';
import { initialWalletState } from '../../src/domain/wallet/wallet.state.js';
import { windowSums } from '../../src/domain/wallet/wallet.tallies.js';
import type { WalletEvent } from '../../src/domain/wallet/wallet.events.js';

const NOW = new Date('2026-01-02T03:04:05.000Z');
const LATER = (ms: number) => new Date(NOW.getTime() + ms);

describe('deposit and loss limits: when a change applies', () => {
  it('when there is no limit, then a first one applies at once', () => {
    expect(nextLimit(undefined, '100', NOW)).toEqual({ value: '100', pendingValue: null, pendingAt: null, updatedAt: NOW.toISOString() });
  });

  it('when a limit is lowered, then at once; raised or removed, then only after the cooling-off, visible as pending', () => {
    const set = nextLimit(undefined, '100', NOW)!;
    expect(nextLimit(set, '50', NOW)).toMatchObject({ value: '50', pendingAt: null });
    const raised = nextLimit(set, '200', NOW)!;
    expect(raised).toMatchObject({ value: '100', pendingValue: '200', pendingAt: LATER(COOLING_OFF_MS).toISOString() });
    expect(effectiveLimit(raised, LATER(COOLING_OFF_MS - 1))).toBe('100');
    expect(effectiveLimit(raised, LATER(COOLING_OFF_MS))).toBe('200');
    const removed = nextLimit(set, null, NOW)!;
    expect(removed).toMatchObject({ value: '100', pendingValue: null, pendingAt: LATER(COOLING_OFF_MS).toISOString() });
    expect(effectiveLimit(removed, LATER(COOLING_OFF_MS))).toBeNull();
  });

  it('when the value in force is asked again during a pending raise, then the raise is dropped; asking nothing new changes nothing', () => {
    const raised = nextLimit(nextLimit(undefined, '100', NOW)!, '200', NOW)!;
    expect(nextLimit(raised, '100', LATER(1))).toMatchObject({ value: '100', pendingAt: null });
    expect(nextLimit(raised, '200', LATER(1))).toBeUndefined();
    expect(nextLimit(nextLimit(undefined, '100', NOW), '100', LATER(1))).toBeUndefined();
  });

  it('when the player sets a limit, then the event names no admin; an exclusion without an admin is a programming error', () => {
    const state = initialLimitsState(1);
    const decided = decide({ type: 'SetGamblingLimit', data: { kind: 'loss', window: '7d', value: '5' } }, state, {
      now: NOW,
      adminUserId: null,
    });
    expect(decided).toMatchObject({
      right: [{ type: 'GamblingLimitSet', data: { kind: 'loss', window: '7d', value: '5', adminUserId: null } }],
    });
    expect(() => decide({ type: 'LiftSelfExclusion', data: {} }, state, { now: NOW, adminUserId: null })).toThrow(/needs an admin/);
  });
});

describe('wallet tallies: what the limits count', () => {
  const movement = { transactionId: 't', currencyId: 'USDT', postings: [], balanceAfter: '0' } as const;
  const placed = (betId: string, usd: string, at: string): WalletEvent =>
    ({
      type: 'BetPlaced',
      data: { ...movement, betId, roundId: 'r', gameId: 1, gameIdentity: {}, amount: usd, usdAmount: usd, at },
    }) as unknown as WalletEvent;
  const settled = (betId: string, usdPayout: string, at: string): WalletEvent =>
    ({
      type: 'BetSettled',
      data: { ...movement, betId, amount: '1', usdAmount: '1', placedAt: at, payout: usdPayout, usdPayout, multiplier: '1', at },
    }) as unknown as WalletEvent;
  const rolledBack = (betId: string, at: string): WalletEvent =>
    ({ type: 'BetRolledBack', data: { ...movement, betId, amount: '1', originalId: 't', at } }) as unknown as WalletEvent;

  it('when bets are placed, paid and refunded, then the net loss per window is stakes less payouts and refunds, by hour', () => {
    const events = [
      placed('a', '10', '2026-01-01T00:10:00Z'),
      placed('b', '5', '2026-01-02T02:59:00Z'),
      settled('b', '2', '2026-01-02T03:00:00Z'),
      placed('c', '4', '2026-01-02T03:01:00Z'),
      rolledBack('c', '2026-01-02T03:02:00Z'),
    ];
    const state = events.reduce(evolve, initialWalletState(1));
    expect(windowSums(state, NOW.toISOString(), 24).loss).toBe(300_000_000n); // a is 27 hours old: out
    expect(windowSums(state, NOW.toISOString(), 168).loss).toBe(1_300_000_000n);
    expect(state.tallies).toBeInstanceOf(IMap);
  });
});
