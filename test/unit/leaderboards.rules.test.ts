import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toUsdMinor, type DecimalString } from '../../src/domain/money/money.js';
import {
  LEADERBOARD_STATUSES,
  nextStatus,
  periodOf,
  prizesPayable,
  rank,
  usdToCurrencyMinor,
  type AdvanceFacts,
  type LeaderboardStatus,
} from '../../src/leaderboards/leaderboard.rules.js';

const at = (iso: string) => new Date(iso);
const USD = 100_000_000n;

describe('periodOf', () => {
  it('when the type is DAILY, then the period is the UTC day containing now', () => {
    expect(periodOf('DAILY', at('2031-03-10T23:59:59.999Z'))).toEqual({
      start: at('2031-03-10T00:00:00Z'),
      end: at('2031-03-11T00:00:00Z'),
    });
  });
  it('when the type is WEEKLY, then the period is the ISO week from Monday 00:00 UTC, also on a Sunday and a Monday', () => {
    const week = { start: at('2031-03-10T00:00:00Z'), end: at('2031-03-17T00:00:00Z') }; // 2031-03-10 is a Monday
    expect(periodOf('WEEKLY', at('2031-03-10T00:00:00Z'))).toEqual(week);
    expect(periodOf('WEEKLY', at('2031-03-13T12:00:00Z'))).toEqual(week);
    expect(periodOf('WEEKLY', at('2031-03-16T23:59:59Z'))).toEqual(week);
  });
  it('when the type is MONTHLY, then the period is the calendar month, across a year end and a leap February', () => {
    expect(periodOf('MONTHLY', at('2031-12-31T10:00:00Z'))).toEqual({ start: at('2031-12-01T00:00:00Z'), end: at('2032-01-01T00:00:00Z') });
    expect(periodOf('MONTHLY', at('2032-02-29T10:00:00Z'))).toEqual({ start: at('2032-02-01T00:00:00Z'), end: at('2032-03-01T00:00:00Z') });
  });
  it('when any instant is given, then it lies inside its period and periods of every type start at midnight UTC', () => {
    fc.assert(
      fc.property(fc.date({ min: at('2000-01-01T00:00:00Z'), max: at('2100-01-01T00:00:00Z'), noInvalidDate: true }), (now) => {
        for (const type of ['DAILY', 'WEEKLY', 'MONTHLY'] as const) {
          const { start, end } = periodOf(type, now);
          expect(start.getTime()).toBeLessThanOrEqual(now.getTime());
          expect(end.getTime()).toBeGreaterThan(now.getTime());
          expect(start.getUTCHours() + start.getUTCMinutes() + start.getUTCSeconds()).toBe(0);
        }
      }),
    );
  });
});

describe('nextStatus', () => {
  const facts = (status: LeaderboardStatus, now: string, allPrizesPaid = false): AdvanceFacts => ({
    status,
    now: at(now),
    startDate: at('2031-03-10T00:00:00Z'),
    endDate: at('2031-03-11T00:00:00Z'),
    settlementDelayMs: 60_000,
    allPrizesPaid,
  });
  it('when the clock reaches each boundary, then NOT_STARTED -> ACTIVE -> ENDED -> SETTLEMENT -> FINISHED, one step at a time', () => {
    expect(nextStatus(facts('NOT_STARTED', '2031-03-10T00:00:00Z'))).toBe('ACTIVE');
    expect(nextStatus(facts('ACTIVE', '2031-03-11T00:00:00Z'))).toBe('ENDED');
    expect(nextStatus(facts('ENDED', '2031-03-11T00:01:00Z'))).toBe('SETTLEMENT');
    expect(nextStatus(facts('SETTLEMENT', '2031-03-11T00:01:00Z', true))).toBe('FINISHED');
  });
  it('when the clock is before each boundary, then nothing moves', () => {
    expect(nextStatus(facts('NOT_STARTED', '2031-03-09T23:59:59.999Z'))).toBeUndefined();
    expect(nextStatus(facts('ACTIVE', '2031-03-10T23:59:59.999Z'))).toBeUndefined();
    expect(nextStatus(facts('ENDED', '2031-03-11T00:00:59.999Z'))).toBeUndefined();
  });
  it('when a winner still waits for a prize, then SETTLEMENT stays; FINISHED never moves', () => {
    expect(nextStatus(facts('SETTLEMENT', '2040-01-01T00:00:00Z', false))).toBeUndefined();
    expect(nextStatus(facts('FINISHED', '2040-01-01T00:00:00Z', true))).toBeUndefined();
  });
  it('when any status and clock are given, then the only moves are the five forward steps', () => {
    const allowed = new Set(['NOT_STARTED>ACTIVE', 'ACTIVE>ENDED', 'ENDED>SETTLEMENT', 'SETTLEMENT>FINISHED']);
    fc.assert(
      fc.property(fc.constantFrom(...LEADERBOARD_STATUSES), fc.integer({ min: -3, max: 3 }), fc.boolean(), (status, days, paid) => {
        const to = nextStatus({
          ...facts(status, '2031-03-10T12:00:00Z', paid),
          now: new Date(at('2031-03-10T12:00:00Z').getTime() + days * 86_400_000),
        });
        if (to !== undefined) expect(allowed.has(`${status}>${to}`)).toBe(true);
      }),
    );
  });
  it('when the status is SETTLEMENT or FINISHED, then prizes may be given; before, not', () => {
    expect(LEADERBOARD_STATUSES.filter(prizesPayable)).toEqual(['SETTLEMENT', 'FINISHED']);
  });
});

describe('rank', () => {
  const prizes = [
    { position: 1, usdPrize: 100n * USD },
    { position: 2, usdPrize: 50n * USD },
    { position: 4, usdPrize: 0n },
  ];
  it('when users wagered different amounts, then the highest is first and prizes follow positions; a zero prize is no win', () => {
    const standings = rank(
      [
        { userId: 3, usdAmount: 10n * USD },
        { userId: 1, usdAmount: 30n * USD },
        { userId: 2, usdAmount: 20n * USD },
        { userId: 4, usdAmount: 5n * USD },
      ],
      prizes,
    );
    expect(standings.map((s) => [s.userId, s.position, s.usdPrize, s.isWinner])).toEqual([
      [1, 1, 100n * USD, true],
      [2, 2, 50n * USD, true],
      [3, 3, 0n, false],
      [4, 4, 0n, false],
    ]);
  });
  it('when two users wagered the same, then the lower user id ranks first; users with nothing wagered are left out', () => {
    const standings = rank(
      [
        { userId: 9, usdAmount: USD },
        { userId: 5, usdAmount: USD },
        { userId: 7, usdAmount: 0n },
      ],
      prizes,
    );
    expect(standings.map((s) => s.userId)).toEqual([5, 9]);
  });
});

describe('usdToCurrencyMinor', () => {
  it('when a USD prize is converted, then the amount is rounded down to the currency scale', () => {
    expect(usdToCurrencyMinor('BTC', 100n * USD, '65000')).toBe(153_846n); // 0.00153846 BTC (0.001538461538...)
    expect(usdToCurrencyMinor('DBC', 10n * USD, '1')).toBe(1000n);
    expect(usdToCurrencyMinor('TRX', USD, '0.12')).toBe(8_333_333n); // 8.333333 TRX
  });
  it('when the rate is zero, then there is no amount', () => {
    expect(usdToCurrencyMinor('TETH', USD, '0')).toBeUndefined();
  });
  it('when any USD amount is converted at any rate, then the amount is never worth more than the USD paid', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 15n }),
        fc.constantFrom('65000', '0.12', '3000', '1', '0.5', '150.25'),
        fc.constantFrom('BTC', 'TRX', 'ETH', 'DBC', 'USDT', 'SOL') as fc.Arbitrary<'BTC'>,
        (usd, rate, currency) => {
          const amount = usdToCurrencyMinor(currency, usd, rate)!;
          expect(toUsdMinor(currency, amount, rate as DecimalString)).toBeLessThanOrEqual(usd);
        },
      ),
    );
  });
});
