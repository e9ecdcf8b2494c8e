import { describe, expect, it } from 'vitest';
import { decide } from '../../src/domain/wallet/wallet.decide.js';
import { businessTimeOf, type WalletEvent } from '../../src/domain/wallet/wallet.events.js';
import { initialWalletState } from '../../src/domain/wallet/wallet.state.js';
import {
  AT,
  META,
  applied,
  claimAffiliate,
  completeDeposit,
  deposited,
  given,
  placeBet,
  requestDeposit,
  requestWithdrawal,
  settleBet,
  tipUser,
  USER,
} from '../support/wallet.given.js';

const EARLIER = '2025-02-27T08:30:00.000Z';
const right = (events: ReturnType<typeof decide>): readonly WalletEvent[] => {
  if (events._tag !== 'Right') throw new Error(`refused: ${JSON.stringify(events.left)}`);
  return events.right;
};

describe('business time (effectiveAt)', () => {
  it('when a command states its business time, then its events record it as effectiveAt and the decision time as at', () => {
    const events = right(decide(requestDeposit('d1', 'BTC', '1', { effectiveAt: EARLIER }), initialWalletState(USER), META));
    expect(events.map((e) => [e.data.at, e.data.effectiveAt])).toEqual([[AT, EARLIER]]);
  });

  it('when a command states no business time, then effectiveAt is the decision time', () => {
    const events = right(decide(tipUser(1, 'BTC', '1'), initialWalletState(USER), META));
    expect(events.map((e) => [e.data.at, e.data.effectiveAt])).toEqual([[AT, AT]]);
  });

  it('when a bet is settled with a business time, then the payout event carries it', () => {
    const settle = settleBet('b1', '1');
    const { events } = given(deposited(USER, 'BTC', '1'), applied(placeBet('b1', 'BTC', '0.5')))
      .when({ ...settle, data: { ...settle.data, effectiveAt: EARLIER } })
      .thenAccepted();
    expect(events.map((e) => [e.type, e.data.at, e.data.effectiveAt])).toEqual([['BetSettled', AT, EARLIER]]);
  });

  it.each([
    ['a bet', placeBet('b1', 'BTC', '0.1', { effectiveAt: EARLIER }), placeBet('b1', 'BTC', '0.1', { effectiveAt: AT })],
    [
      'a withdrawal',
      requestWithdrawal('w1', 'BTC', '0.1', { effectiveAt: EARLIER }),
      requestWithdrawal('w1', 'BTC', '0.1', { effectiveAt: AT }),
    ],
    ['a claim', claimAffiliate('c1', 'BTC', '0.1', { effectiveAt: EARLIER }), claimAffiliate('c1', 'BTC', '0.1')],
    ['a deposit step', completeDeposit('dx'), { ...completeDeposit('dx'), data: { ...completeDeposit('dx').data, effectiveAt: EARLIER } }],
  ] as const)('when %s is retried with another business time, then the retry is the same command: no new event', (_, first, retry) => {
    given(deposited(USER, 'BTC', '1'), applied(requestDeposit('dx', 'BTC', '1')), applied(first))
      .when(retry)
      .thenNothing();
  });

  it('when an event predates the field, then businessTimeOf is its recording time; otherwise its effectiveAt', () => {
    expect(businessTimeOf({ at: AT })).toBe(AT);
    expect(businessTimeOf({ at: AT, effectiveAt: EARLIER })).toBe(EARLIER);
  });
});
