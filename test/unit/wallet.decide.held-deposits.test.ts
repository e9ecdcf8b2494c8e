import { describe, expect, it } from 'vitest';
import { balanceOf } from '../../src/domain/wallet/wallet.state.js';
import {
  ADMIN,
  AT,
  applied,
  completeDeposit,
  dec,
  deposited,
  given,
  minor,
  moved,
  releaseDeposit,
  requestDeposit,
  returnDeposit,
  usd,
  USER,
} from '../support/wallet.given.js';

const user = `user:${USER}` as const;
/** A deposit of 30 USDT recorded past the deposit limit and completed: held on house:deposits-held. */
const heldDeposit = applied(requestDeposit('d1', 'USDT', '30', { usdAmount: usd('30'), overLimit: true }), completeDeposit('d1'));
const settled = (settlement: 'released' | 'returned') => ({
  transactionId: settlement === 'released' ? 'dpr_d1' : 'dpx_d1',
  currencyId: 'USDT' as const,
  depositId: 'd1',
  adminUserId: 7,
  reason: 'limit reviewed',
  amount: dec('30'),
  usdAmount: dec('30'),
  at: AT,
  effectiveAt: AT,
});

describe('held deposits', () => {
  it('when a held deposit is released, then house:deposits-held -> user moves exactly its amount onto the balance', () => {
    const state = given(deposited(USER, 'USDT', '5'), heldDeposit)
      .when(releaseDeposit('d1', 'limit reviewed', 7))
      .then({
        type: 'DepositReleased',
        data: { ...settled('released'), postings: moved('house:deposits-held', user, 'USDT', '30'), balanceAfter: dec('35') },
      });
    expect(balanceOf(state, 'USDT')).toBe(minor('USDT', '35'));
    expect(state.deposits.get('d1')).toMatchObject({ status: 'COMPLETE', held: true, settlement: 'RELEASED' });
  });

  it('when a held deposit is returned, then it leaves to house:deposits-returned and the balance stays', () => {
    const state = given(deposited(USER, 'USDT', '5'), heldDeposit)
      .when(returnDeposit('d1', 'limit reviewed', 7))
      .then({
        type: 'DepositReturned',
        data: {
          ...settled('returned'),
          postings: moved('house:deposits-held', 'house:deposits-returned', 'USDT', '30'),
          balanceAfter: dec('5'),
        },
      });
    expect(balanceOf(state, 'USDT')).toBe(minor('USDT', '5'));
    expect(state.deposits.get('d1')).toMatchObject({ settlement: 'RETURNED' });
  });

  it.each([
    ['released', releaseDeposit('d1'), releaseDeposit('d1', 'another reason', 8)],
    ['returned', returnDeposit('d1'), returnDeposit('d1', 'another reason', 8)],
  ] as const)('when a deposit already %s is decided the same way again, then nothing happens (no second posting)', (_, first, retry) => {
    given(heldDeposit, applied(first)).when(retry).thenNothing();
  });

  it.each([
    ['released', releaseDeposit('d1'), returnDeposit('d1'), 'RELEASED', 'return'],
    ['returned', returnDeposit('d1'), releaseDeposit('d1'), 'RETURNED', 'release'],
  ] as const)('when a deposit already %s is decided the other way, then DepositAlreadySettled', (_, first, other, settlement, action) => {
    given(heldDeposit, applied(first)).when(other).thenFails('DepositAlreadySettled', { depositId: 'd1', settlement, action });
  });

  it('when a deposit that completed to the player is released or returned, then DepositNotHeld', () => {
    const credited = applied(requestDeposit('d1', 'USDT', '30'), completeDeposit('d1'));
    given(credited).when(releaseDeposit('d1')).thenFails('DepositNotHeld', { depositId: 'd1', status: 'COMPLETE', action: 'release' });
    given(credited).when(returnDeposit('d1')).thenFails('DepositNotHeld', { depositId: 'd1', status: 'COMPLETE', action: 'return' });
  });

  it('when an over-limit deposit is not yet complete, then it cannot be released: DepositNotHeld', () => {
    given(applied(requestDeposit('d1', 'USDT', '30', { overLimit: true })))
      .when(releaseDeposit('d1'))
      .thenFails('DepositNotHeld', { depositId: 'd1', status: 'PENDING' });
  });

  it('when the deposit is unknown, then DepositNotFound', () => {
    given().when(returnDeposit('nope')).thenFails('DepositNotFound', { depositId: 'nope' });
  });

  it('when a held deposit is released, then the admin and the reason are on the event', () => {
    const { result } = given(heldDeposit).when(releaseDeposit('d1', 'source of funds checked'));
    expect(result).toMatchObject({ right: [{ data: { adminUserId: ADMIN, reason: 'source of funds checked' } }] });
  });
});
