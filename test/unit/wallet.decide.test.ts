import { describe, expect, it } from 'vitest';
import { decide } from '../../src/domain/wallet/wallet.decide.js';
import { evolve } from '../../src/domain/wallet/wallet.evolve.js';
import { balanceOf, initialWalletState } from '../../src/domain/wallet/wallet.state.js';
import {
  ADMIN,
  AT,
  GAME,
  META,
  NOW,
  SETUP_AT,
  USER,
  applied,
  approveWithdrawal,
  completeDeposit,
  completeWithdrawal,
  confirmDeposit,
  claimAffiliate,
  creditPrize,
  dec,
  deductBalance,
  deposited,
  errorBet,
  failDeposit,
  failWithdrawal,
  given,
  minor,
  moved,
  placeBet,
  rejectWithdrawal,
  requestDeposit,
  requestWithdrawal,
  retryWithdrawal,
  rollbackBet,
  setBalance,
  settleBet,
  tipUser,
  usd,
} from '../support/wallet.given.js';

const user = `user:${USER}` as const;

describe('deposits', () => {
  it('when a deposit is requested, then it is recorded PENDING without moving money', () => {
    const state = given()
      .when(requestDeposit('d1', 'BTC', '1.5', { usdAmount: usd('90000.5'), txHash: '0x1', payAddress: 'a', payMemo: 'm' }))
      .then({
        type: 'DepositRequested',
        data: {
          depositId: 'd1',
          externalId: 'ext-d1',
          providerId: 'prov',
          networkId: 'net',
          currencyId: 'BTC',
          amount: dec('1.5'),
          usdAmount: dec('90000.5'),
          txHash: '0x1',
          payAddress: 'a',
          payMemo: 'm',
          at: AT,
          effectiveAt: AT,
        },
      });
    expect(state.deposits.get('d1')).toMatchObject({ status: 'PENDING', amount: minor('BTC', '1.5'), createdAt: AT, updatedAt: AT });
    expect(state.depositsByExternalKey.get('prov:ext-d1')).toBe('d1');
    expect(balanceOf(state, 'BTC')).toBe(0n);
  });

  it('when the same providerId + externalId is requested again with the same amount, then nothing new happens', () => {
    given(applied(requestDeposit('d1', 'BTC', '1')))
      .when(requestDeposit('d2', 'BTC', '1', { externalId: 'ext-d1' }))
      .thenNothing();
  });

  it('when the same providerId + externalId comes with another amount or currency, then it is an idempotency conflict', () => {
    given(applied(requestDeposit('d1', 'BTC', '1')))
      .when(requestDeposit('d2', 'BTC', '2', { externalId: 'ext-d1' }))
      .thenFails('IdempotencyConflict', { key: 'prov:ext-d1' });
    given(applied(requestDeposit('d1', 'BTC', '1')))
      .when(requestDeposit('d2', 'LTC', '1', { externalId: 'ext-d1' }))
      .thenFails('IdempotencyConflict', { key: 'prov:ext-d1' });
  });

  it('when another provider uses the same externalId, then it is a different deposit', () => {
    const { state } = given(applied(requestDeposit('d1', 'BTC', '1')))
      .when(requestDeposit('d2', 'BTC', '1', { externalId: 'ext-d1', providerId: 'other' }))
      .thenAccepted();
    expect(state.depositsByExternalKey.get('other:ext-d1')).toBe('d2');
  });

  it('when a deposit id is reused for another external deposit, then it is an idempotency conflict', () => {
    given(applied(requestDeposit('d1', 'BTC', '1')))
      .when(requestDeposit('d1', 'BTC', '1', { externalId: 'other' }))
      .thenFails('IdempotencyConflict', { key: 'd1' });
  });

  it.each([['0'], ['-1']])('when the amount is %s, then it is an invalid amount', (amount) => {
    given()
      .when(requestDeposit('d1', 'BTC', amount))
      .thenFails('InvalidAmount', { field: 'amount' });
  });

  it('when the usdAmount is negative, then it is an invalid amount', () => {
    given()
      .when(requestDeposit('d1', 'BTC', '1', { usdAmount: -1n }))
      .thenFails('InvalidAmount', { field: 'usdAmount' });
  });

  it('when a PENDING deposit is confirmed, then it is CONFIRMED with the new txHash', () => {
    const state = given(applied(requestDeposit('d1', 'BTC', '1')))
      .when(confirmDeposit('d1', '0xfeed'))
      .then({ type: 'DepositConfirmed', data: { depositId: 'd1', txHash: '0xfeed', at: AT, effectiveAt: AT } });
    expect(state.deposits.get('d1')).toMatchObject({ status: 'CONFIRMED', txHash: '0xfeed', createdAt: SETUP_AT, updatedAt: AT });
  });

  it('when a deposit is confirmed without a txHash, then the one it had is kept', () => {
    given(applied(requestDeposit('d1', 'BTC', '1', { txHash: '0xold' })))
      .when(confirmDeposit('d1'))
      .then({ type: 'DepositConfirmed', data: { depositId: 'd1', txHash: '0xold', at: AT, effectiveAt: AT } });
  });

  it('when a CONFIRMED deposit is completed, then the wallet is credited house:deposits -> user', () => {
    const state = given(
      deposited(USER, 'BTC', '0.25'),
      applied(requestDeposit('d1', 'BTC', '1.5', { usdAmount: usd('3') }), confirmDeposit('d1')),
    )
      .when(completeDeposit('d1', '0xdone'))
      .then({
        type: 'DepositCompleted',
        data: {
          transactionId: 'dep_d1',
          currencyId: 'BTC',
          postings: moved('house:deposits', user, 'BTC', '1.5'),
          balanceAfter: dec('1.75'),
          depositId: 'd1',
          amount: dec('1.5'),
          usdAmount: dec('3'),
          txHash: '0xdone',
          at: AT,
          effectiveAt: AT,
        },
      });
    expect(balanceOf(state, 'BTC')).toBe(minor('BTC', '1.75'));
    expect(state.deposits.get('d1')).toMatchObject({ status: 'COMPLETE', transactionId: 'dep_d1', txHash: '0xdone' });
  });

  it('when a PENDING deposit is completed directly, then the wallet is credited (providers may skip confirmation)', () => {
    given(applied(requestDeposit('d1', 'ETH', '0.000000000000000001')))
      .when(completeDeposit('d1'))
      .then({
        type: 'DepositCompleted',
        data: {
          transactionId: 'dep_d1',
          currencyId: 'ETH',
          postings: moved('house:deposits', user, 'ETH', '0.000000000000000001'),
          balanceAfter: dec('0.000000000000000001'),
          depositId: 'd1',
          amount: dec('0.000000000000000001'),
          usdAmount: dec('0'),
          txHash: null,
          at: AT,
          effectiveAt: AT,
        },
      });
  });

  it('when a COMPLETE deposit is completed again, then nothing happens (credited once)', () => {
    given(applied(requestDeposit('d1', 'BTC', '1'), completeDeposit('d1')))
      .when(completeDeposit('d1'))
      .thenNothing();
  });

  it('when a CONFIRMED deposit is confirmed again, then nothing happens', () => {
    given(applied(requestDeposit('d1', 'BTC', '1'), confirmDeposit('d1')))
      .when(confirmDeposit('d1'))
      .thenNothing();
  });

  it.each([
    ['PENDING', []],
    ['CONFIRMED', [confirmDeposit('d1')]],
  ] as const)('when a %s deposit fails, then it is FAILED with the reason', (_, before) => {
    const state = given(applied(requestDeposit('d1', 'BTC', '1'), ...before))
      .when(failDeposit('d1', 'expired'))
      .then({ type: 'DepositFailed', data: { depositId: 'd1', reason: 'expired', at: AT, effectiveAt: AT } });
    expect(state.deposits.get('d1')).toMatchObject({ status: 'FAILED', failedReason: 'expired' });
  });

  it('when a FAILED deposit fails again, then nothing happens', () => {
    given(applied(requestDeposit('d1', 'BTC', '1'), failDeposit('d1')))
      .when(failDeposit('d1'))
      .thenNothing();
  });

  it.each([
    ['confirm', 'COMPLETE', completeDeposit('d1'), confirmDeposit('d1')],
    ['confirm', 'FAILED', failDeposit('d1'), confirmDeposit('d1')],
    ['complete', 'FAILED', failDeposit('d1'), completeDeposit('d1')],
    ['fail', 'COMPLETE', completeDeposit('d1'), failDeposit('d1')],
  ] as const)('when asked to %s a %s deposit, then it is an invalid state', (action, status, before, command) => {
    given(applied(requestDeposit('d1', 'BTC', '1'), before))
      .when(command)
      .thenFails('DepositInvalidState', { depositId: 'd1', status, action });
  });

  it.each([confirmDeposit('nope'), completeDeposit('nope'), failDeposit('nope')])(
    'when $type names an unknown deposit, then it is not found',
    (command) => {
      given().when(command).thenFails('DepositNotFound', { depositId: 'nope' });
    },
  );
});

describe('bets', () => {
  const funded = deposited(USER, 'BTC', '1');

  it('when a bet is placed, then the stake moves user -> house:bets', () => {
    const state = given(funded)
      .when(placeBet('b1', 'BTC', '0.4', { usdAmount: usd('24000') }))
      .then({
        type: 'BetPlaced',
        data: {
          transactionId: 'bet_b1',
          currencyId: 'BTC',
          postings: moved(user, 'house:bets', 'BTC', '0.4'),
          balanceAfter: dec('0.6'),
          betId: 'b1',
          roundId: 'round-b1',
          gameId: 7,
          gameIdentity: GAME,
          amount: dec('0.4'),
          usdAmount: dec('24000'),
          at: AT,
          effectiveAt: AT,
        },
      });
    expect(state.bets.get('b1')).toMatchObject({ status: 'CREATED', transactionId: 'bet_b1', payout: 0n, settledAt: null });
  });

  it('when the stake is the whole balance, then the balance goes to exactly zero', () => {
    const { state } = given(funded)
      .when(placeBet('b1', 'BTC', '1'))
      .thenAccepted();
    expect(balanceOf(state, 'BTC')).toBe(0n);
  });

  it('when the stake exceeds the balance, then it fails with insufficient funds', () => {
    given(funded)
      .when(placeBet('b1', 'BTC', '1.00000001'))
      .thenFails('InsufficientFunds', { currencyId: 'BTC', balance: '1', required: '1.00000001' });
  });

  it('when the balance is in another currency, then it does not cover the stake', () => {
    given(deposited(USER, 'ETH', '10'))
      .when(placeBet('b1', 'BTC', '0.1'))
      .thenFails('InsufficientFunds', { currencyId: 'BTC', balance: '0', required: '0.1' });
  });

  it.each([['0'], ['-0.1']])('when the stake is %s, then it is an invalid amount', (amount) => {
    given(funded)
      .when(placeBet('b1', 'BTC', amount))
      .thenFails('InvalidAmount', { field: 'amount' });
  });

  it('when the same bet is placed again, then nothing happens, even after it settled and the money is gone', () => {
    given(funded, applied(placeBet('b1', 'BTC', '1'), settleBet('b1', '0')))
      .when(placeBet('b1', 'BTC', '1'))
      .thenNothing();
  });

  it.each([
    ['amount', placeBet('b1', 'BTC', '0.2')],
    ['currency', placeBet('b1', 'LTC', '0.1')],
    ['round', placeBet('b1', 'BTC', '0.1', { roundId: 'other' })],
  ])('when a bet id is reused with another %s, then it is an idempotency conflict', (_, command) => {
    given(funded, deposited(USER, 'LTC', '1'), applied(placeBet('b1', 'BTC', '0.1')))
      .when(command)
      .thenFails('IdempotencyConflict', { key: 'b1' });
  });

  it('when a bet is settled, then the payout moves house:payouts -> user with its multiplier', () => {
    const state = given(funded, applied(placeBet('b1', 'BTC', '0.4', { usdAmount: usd('24000') })))
      .when(settleBet('b1', '1', 'BTC', '60000'))
      .then({
        type: 'BetSettled',
        data: {
          transactionId: 'win_b1',
          currencyId: 'BTC',
          postings: moved('house:payouts', user, 'BTC', '1'),
          balanceAfter: dec('1.6'),
          betId: 'b1',
          amount: dec('0.4'),
          usdAmount: dec('24000'),
          placedAt: SETUP_AT,
          payout: dec('1'),
          usdPayout: dec('60000'),
          multiplier: dec('2.5'),
          at: AT,
          effectiveAt: AT,
        },
      });
    expect(state.bets.get('b1')).toMatchObject({ status: 'SETTLED', payout: minor('BTC', '1'), multiplier: '2.5', settledAt: AT });
  });

  it('when a bet is settled with a zero payout, then there are no postings and the balance stays', () => {
    given(funded, applied(placeBet('b1', 'BTC', '0.4')))
      .when(settleBet('b1', '0'))
      .then({
        type: 'BetSettled',
        data: {
          transactionId: 'win_b1',
          currencyId: 'BTC',
          postings: [],
          balanceAfter: dec('0.6'),
          betId: 'b1',
          amount: dec('0.4'),
          usdAmount: dec('0'),
          placedAt: SETUP_AT,
          payout: dec('0'),
          usdPayout: dec('0'),
          multiplier: dec('0'),
          at: AT,
          effectiveAt: AT,
        },
      });
  });

  it.each([
    ['0.03', '0.02', '0.66666667'],
    ['1', '0.02', '0.02'],
    ['3', '1', '0.33333333'],
    ['2', '0.00000003', '0.00000002'],
    ['2', '0.00000001', '0'],
    ['0.00000001', '1', '100000000'],
  ])('when a stake of %s pays %s, then the multiplier is %s (8 decimals, half to even)', (stake, payout, multiplier) => {
    const { events } = given(deposited(USER, 'BTC', '5'), applied(placeBet('b1', 'BTC', stake)))
      .when(settleBet('b1', payout))
      .thenAccepted();
    expect(events).toMatchObject([{ type: 'BetSettled', data: { multiplier } }]);
  });

  it('when a settled bet is settled again with the same payout, then nothing happens', () => {
    given(funded, applied(placeBet('b1', 'BTC', '0.4'), settleBet('b1', '1')))
      .when(settleBet('b1', '1'))
      .thenNothing();
  });

  it('when a settled bet is settled with another payout, then it is an invalid state', () => {
    given(funded, applied(placeBet('b1', 'BTC', '0.4'), settleBet('b1', '1')))
      .when(settleBet('b1', '2'))
      .thenFails('BetInvalidState', { betId: 'b1', status: 'SETTLED', action: 'settle' });
  });

  it('when the payout is negative, then it is an invalid amount', () => {
    given(funded, applied(placeBet('b1', 'BTC', '0.4')))
      .when(settleBet('b1', '-1'))
      .thenFails('InvalidAmount', { field: 'payout' });
  });

  it('when a bet is rolled back, then the stake is refunded house:bets -> user with the placement as originalId', () => {
    const state = given(funded, applied(placeBet('b1', 'BTC', '0.4')))
      .when(rollbackBet('b1'))
      .then({
        type: 'BetRolledBack',
        data: {
          transactionId: 'rb_b1',
          currencyId: 'BTC',
          postings: moved('house:bets', user, 'BTC', '0.4'),
          balanceAfter: dec('1'),
          betId: 'b1',
          amount: dec('0.4'),
          originalId: 'bet_b1',
          at: AT,
          effectiveAt: AT,
        },
      });
    expect(state.bets.get('b1')).toMatchObject({ status: 'ROLLBACK' });
  });

  it('when a bet errors, then the stake is refunded and the details are recorded', () => {
    const state = given(funded, applied(placeBet('b1', 'BTC', '0.4')))
      .when(errorBet('b1', 'rng failure'))
      .then({
        type: 'BetErrored',
        data: {
          transactionId: 'err_b1',
          currencyId: 'BTC',
          postings: moved('house:bets', user, 'BTC', '0.4'),
          balanceAfter: dec('1'),
          betId: 'b1',
          amount: dec('0.4'),
          originalId: 'bet_b1',
          errorDetails: 'rng failure',
          at: AT,
          effectiveAt: AT,
        },
      });
    expect(state.bets.get('b1')).toMatchObject({ status: 'ERROR', errorDetails: 'rng failure' });
  });

  it('when a rolled back bet is rolled back again, then nothing happens', () => {
    given(funded, applied(placeBet('b1', 'BTC', '0.4'), rollbackBet('b1')))
      .when(rollbackBet('b1'))
      .thenNothing();
  });

  it('when an errored bet errors again, then nothing happens', () => {
    given(funded, applied(placeBet('b1', 'BTC', '0.4'), errorBet('b1')))
      .when(errorBet('b1'))
      .thenNothing();
  });

  it.each([
    ['settle', 'ROLLBACK', rollbackBet('b1'), settleBet('b1', '1')],
    ['settle', 'ERROR', errorBet('b1'), settleBet('b1', '1')],
    ['rollback', 'SETTLED', settleBet('b1', '1'), rollbackBet('b1')],
    ['rollback', 'ERROR', errorBet('b1'), rollbackBet('b1')],
    ['error', 'SETTLED', settleBet('b1', '0'), errorBet('b1')],
    ['error', 'ROLLBACK', rollbackBet('b1'), errorBet('b1')],
  ] as const)('when asked to %s a %s bet, then it is an invalid state', (action, status, before, command) => {
    given(funded, applied(placeBet('b1', 'BTC', '0.4'), before))
      .when(command)
      .thenFails('BetInvalidState', { betId: 'b1', status, action });
  });

  it.each([settleBet('nope', '1'), rollbackBet('nope'), errorBet('nope')])(
    'when $type names an unknown bet, then it is not found',
    (command) => {
      given().when(command).thenFails('BetNotFound', { betId: 'nope' });
    },
  );
});

describe('withdrawals', () => {
  const funded = deposited(USER, 'USDT', '100');
  const requested = [funded, applied(requestWithdrawal('w1', 'USDT', '40'))] as const;
  const failed = [...requested, applied(approveWithdrawal('w1'), failWithdrawal('w1', 'node down'))] as const;

  it('when a withdrawal is requested, then the funds are held user -> house:withdrawals-held', () => {
    const state = given(funded)
      .when(requestWithdrawal('w1', 'USDT', '40', { usdAmount: usd('40'), recipientMemo: 'memo' }))
      .then({
        type: 'WithdrawalRequested',
        data: {
          transactionId: 'wd_w1',
          currencyId: 'USDT',
          postings: moved(user, 'house:withdrawals-held', 'USDT', '40'),
          balanceAfter: dec('60'),
          withdrawalId: 'w1',
          operationKey: 'key-w1',
          amount: dec('40'),
          usdAmount: dec('40'),
          networkId: 'net',
          providerId: 'prov',
          recipientAddress: 'addr-1',
          recipientMemo: 'memo',
          at: AT,
          effectiveAt: AT,
        },
      });
    expect(state.withdrawals.get('w1')).toMatchObject({ status: 'PENDING', transactionId: 'wd_w1', amount: minor('USDT', '40') });
    expect(state.operations.get('key-w1')).toMatchObject({ commandType: 'RequestWithdrawal', ref: 'w1' });
  });

  it('when the withdrawal exceeds the balance, then it fails with insufficient funds', () => {
    given(funded)
      .when(requestWithdrawal('w1', 'USDT', '100.000001'))
      .thenFails('InsufficientFunds', { currencyId: 'USDT', balance: '100', required: '100.000001' });
  });

  it('when the amount is zero, then it is an invalid amount', () => {
    given(funded)
      .when(requestWithdrawal('w1', 'USDT', '0'))
      .thenFails('InvalidAmount', { field: 'amount' });
  });

  it('when the same operation key is sent again, then nothing happens, even with a fresh withdrawal id and no funds left', () => {
    given(funded, applied(requestWithdrawal('w1', 'USDT', '100')))
      .when(requestWithdrawal('w2', 'USDT', '100', { operationKey: 'key-w1' }))
      .thenNothing();
  });

  it('when the same withdrawal id is sent again with the same values, then nothing happens', () => {
    given(...requested)
      .when(requestWithdrawal('w1', 'USDT', '40', { operationKey: 'other-key' }))
      .thenNothing();
  });

  it.each([
    ['amount', requestWithdrawal('w2', 'USDT', '41', { operationKey: 'key-w1' }), 'key-w1'],
    ['address', requestWithdrawal('w2', 'USDT', '40', { operationKey: 'key-w1', recipientAddress: 'elsewhere' }), 'key-w1'],
    ['amount under the same id', requestWithdrawal('w1', 'USDT', '41', { operationKey: 'other-key' }), 'w1'],
  ])('when a withdrawal key is reused with another %s, then it is an idempotency conflict', (_, command, key) => {
    given(...requested)
      .when(command)
      .thenFails('IdempotencyConflict', { key });
  });

  it('when the operation key was used by a tip, then it is an idempotency conflict', () => {
    given(funded, applied(tipUser(1, 'USDT', '1', { operationKey: 'k' })))
      .when(requestWithdrawal('w1', 'USDT', '1', { operationKey: 'k' }))
      .thenFails('IdempotencyConflict', { key: 'k' });
  });

  it('when a PENDING withdrawal is approved, then it is CONFIRMED by that admin', () => {
    const state = given(...requested)
      .when(approveWithdrawal('w1', 7))
      .then({ type: 'WithdrawalApproved', data: { withdrawalId: 'w1', adminUserId: 7, at: AT, effectiveAt: AT } });
    expect(state.withdrawals.get('w1')).toMatchObject({ status: 'CONFIRMED', confirmedAt: AT, confirmedByUserId: 7 });
  });

  it('when a CONFIRMED withdrawal is completed, then the held funds leave to house:withdrawals and the balance stays', () => {
    const state = given(...requested, applied(approveWithdrawal('w1')))
      .when(completeWithdrawal('w1', '0xsent'))
      .then({
        type: 'WithdrawalCompleted',
        data: {
          transactionId: 'wdc_w1',
          currencyId: 'USDT',
          postings: moved('house:withdrawals-held', 'house:withdrawals', 'USDT', '40'),
          balanceAfter: dec('60'),
          withdrawalId: 'w1',
          txHash: '0xsent',
          amount: dec('40'),
          usdAmount: dec('0'),
          at: AT,
          effectiveAt: AT,
        },
      });
    expect(state.withdrawals.get('w1')).toMatchObject({ status: 'COMPLETE', txHash: '0xsent' });
    expect(balanceOf(state, 'USDT')).toBe(minor('USDT', '60'));
  });

  it('when the provider reports the same completion again, then nothing happens', () => {
    given(...requested, applied(approveWithdrawal('w1'), completeWithdrawal('w1', '0xsent')))
      .when(completeWithdrawal('w1', '0xsent'))
      .thenNothing();
  });

  it('when a CONFIRMED withdrawal fails, then it is FAILED with the reason and the funds stay held', () => {
    const state = given(...requested, applied(approveWithdrawal('w1')))
      .when(failWithdrawal('w1', 'node down'))
      .then({ type: 'WithdrawalFailed', data: { withdrawalId: 'w1', failedReason: 'node down', at: AT, effectiveAt: AT } });
    expect(state.withdrawals.get('w1')).toMatchObject({ status: 'FAILED', failedReason: 'node down' });
    expect(balanceOf(state, 'USDT')).toBe(minor('USDT', '60'));
  });

  it('when the provider reports the same failure again, then nothing happens', () => {
    given(...failed)
      .when(failWithdrawal('w1', 'node down'))
      .thenNothing();
  });

  it('when a FAILED withdrawal is retried, then it is CONFIRMED again by the retrying admin', () => {
    const state = given(...failed)
      .when(retryWithdrawal('w1', 8))
      .then({ type: 'WithdrawalRetried', data: { withdrawalId: 'w1', adminUserId: 8, at: AT, effectiveAt: AT } });
    expect(state.withdrawals.get('w1')).toMatchObject({ status: 'CONFIRMED', confirmedByUserId: 8, confirmedAt: AT });
  });

  it.each([
    ['PENDING', requested],
    ['FAILED', failed],
  ] as const)('when a %s withdrawal is rejected, then it is DENIED and the funds return', (_, setup) => {
    const state = given(...setup)
      .when(rejectWithdrawal('w1', 'kyc', 7))
      .then({
        type: 'WithdrawalRejected',
        data: {
          transactionId: 'wdr_w1',
          currencyId: 'USDT',
          postings: moved('house:withdrawals-held', user, 'USDT', '40'),
          balanceAfter: dec('100'),
          withdrawalId: 'w1',
          adminUserId: 7,
          rejectReason: 'kyc',
          amount: dec('40'),
          at: AT,
          effectiveAt: AT,
        },
      });
    expect(state.withdrawals.get('w1')).toMatchObject({ status: 'DENIED', rejectReason: 'kyc' });
  });

  it.each([
    ['approve', 'CONFIRMED', [approveWithdrawal('w1')], approveWithdrawal('w1')],
    ['approve', 'FAILED', [approveWithdrawal('w1'), failWithdrawal('w1')], approveWithdrawal('w1')],
    ['approve', 'DENIED', [rejectWithdrawal('w1')], approveWithdrawal('w1')],
    ['reject', 'CONFIRMED', [approveWithdrawal('w1')], rejectWithdrawal('w1')],
    ['reject', 'DENIED', [rejectWithdrawal('w1')], rejectWithdrawal('w1')],
    ['reject', 'COMPLETE', [approveWithdrawal('w1'), completeWithdrawal('w1')], rejectWithdrawal('w1')],
    ['retry', 'PENDING', [], retryWithdrawal('w1')],
    ['retry', 'CONFIRMED', [approveWithdrawal('w1')], retryWithdrawal('w1')],
    ['retry', 'COMPLETE', [approveWithdrawal('w1'), completeWithdrawal('w1')], retryWithdrawal('w1')],
    ['complete', 'PENDING', [], completeWithdrawal('w1')],
    ['complete', 'FAILED', [approveWithdrawal('w1'), failWithdrawal('w1')], completeWithdrawal('w1')],
    ['complete', 'COMPLETE', [approveWithdrawal('w1'), completeWithdrawal('w1', '0x1')], completeWithdrawal('w1', '0x2')],
    ['fail', 'PENDING', [], failWithdrawal('w1')],
    ['fail', 'FAILED', [approveWithdrawal('w1'), failWithdrawal('w1', 'a')], failWithdrawal('w1', 'b')],
    ['fail', 'DENIED', [rejectWithdrawal('w1')], failWithdrawal('w1')],
  ] as const)('when asked to %s a %s withdrawal, then it is an invalid state', (action, status, before, command) => {
    given(...requested, applied(...before))
      .when(command)
      .thenFails('WithdrawalInvalidState', { withdrawalId: 'w1', status, action });
  });

  it.each([
    approveWithdrawal('nope'),
    rejectWithdrawal('nope'),
    retryWithdrawal('nope'),
    completeWithdrawal('nope'),
    failWithdrawal('nope'),
  ])('when $type names an unknown withdrawal, then it is not found', (command) => {
    given().when(command).thenFails('WithdrawalNotFound', { withdrawalId: 'nope' });
  });
});

describe('admin operations', () => {
  it('when an admin tips a user, then house:admin-tips -> user and the key is remembered', () => {
    const state = given()
      .when(tipUser(5, 'DBC', '12.5', { usdAmount: usd('12.5'), tag: 'SALARY', notes: 'thanks' }))
      .then({
        type: 'AdminTipCredited',
        data: {
          transactionId: 'tip_5',
          currencyId: 'DBC',
          postings: moved('house:admin-tips', user, 'DBC', '12.5'),
          balanceAfter: dec('12.5'),
          adminUserId: ADMIN,
          operationKey: 'tip-key-5',
          tipId: 5,
          amount: dec('12.5'),
          usdAmount: dec('12.5'),
          tag: 'SALARY',
          notes: 'thanks',
          at: AT,
          effectiveAt: AT,
        },
      });
    expect(state.operations.get('tip-key-5')).toMatchObject({ commandType: 'TipUser', ref: '5' });
  });

  it('when an admin deducts from a user, then user -> house:admin-tips', () => {
    given(deposited(USER, 'DBC', '20'))
      .when(deductBalance(6, 'DBC', '7.25'))
      .then({
        type: 'AdminTipDeducted',
        data: {
          transactionId: 'ded_6',
          currencyId: 'DBC',
          postings: moved(user, 'house:admin-tips', 'DBC', '7.25'),
          balanceAfter: dec('12.75'),
          adminUserId: ADMIN,
          operationKey: 'ded-key-6',
          tipId: 6,
          amount: dec('7.25'),
          usdAmount: dec('0'),
          tag: null,
          notes: '',
          at: AT,
          effectiveAt: AT,
        },
      });
  });

  it('when a deduction exceeds the balance, then it fails with insufficient funds', () => {
    given(deposited(USER, 'DBC', '20'))
      .when(deductBalance(6, 'DBC', '20.01'))
      .thenFails('InsufficientFunds', { currencyId: 'DBC', balance: '20', required: '20.01' });
  });

  it('when a deduction is repeated with its key after the balance is gone, then nothing happens', () => {
    given(deposited(USER, 'DBC', '20'), applied(deductBalance(6, 'DBC', '20')))
      .when(deductBalance(7, 'DBC', '20', { operationKey: 'ded-key-6' }))
      .thenNothing();
  });

  it('when a tip is repeated with its key (even under a fresh tip id), then nothing happens', () => {
    given(applied(tipUser(5, 'DBC', '1')))
      .when(tipUser(9, 'DBC', '1', { operationKey: 'tip-key-5' }))
      .thenNothing();
  });

  it.each([
    ['another amount', tipUser(9, 'DBC', '2', { operationKey: 'tip-key-5' })],
    ['another command', deductBalance(9, 'DBC', '1', { operationKey: 'tip-key-5' })],
    ['a set-balance', setBalance('tip-key-5', 'DBC', '1')],
    ['a prize', creditPrize('tip-key-5', 'DBC', '1')],
  ])('when a tip key is reused for %s, then it is an idempotency conflict', (_, command) => {
    given(applied(tipUser(5, 'DBC', '1')))
      .when(command)
      .thenFails('IdempotencyConflict', { key: 'tip-key-5' });
  });

  it.each([
    ['tip', tipUser(1, 'BTC', '0'), 'amount'],
    ['tip', tipUser(1, 'BTC', '1', { usdAmount: -1n }), 'usdAmount'],
    ['deduction', deductBalance(1, 'BTC', '-1'), 'amount'],
    ['prize', creditPrize('k', 'BTC', '0'), 'amount'],
    ['set-balance', setBalance('k', 'BTC', '-0.00000001'), 'balance'],
  ])('when a %s has an invalid amount, then it is refused naming the field', (_, command, field) => {
    given().when(command).thenFails('InvalidAmount', { field });
  });

  it('when a SuperAdmin raises a balance, then the difference moves house:adjustments -> user', () => {
    given(deposited(USER, 'ETH', '1'))
      .when(setBalance('op-1', 'ETH', '3.5'))
      .then({
        type: 'BalanceSet',
        data: {
          transactionId: 'adj_op-1',
          currencyId: 'ETH',
          postings: moved('house:adjustments', user, 'ETH', '2.5'),
          balanceAfter: dec('3.5'),
          adminUserId: ADMIN,
          operationKey: 'op-1',
          previousBalance: dec('1'),
          balance: dec('3.5'),
          at: AT,
          effectiveAt: AT,
        },
      });
  });

  it('when a SuperAdmin lowers a balance to zero, then the difference moves user -> house:adjustments', () => {
    const state = given(deposited(USER, 'ETH', '1'))
      .when(setBalance('op-1', 'ETH', '0'))
      .then({
        type: 'BalanceSet',
        data: {
          transactionId: 'adj_op-1',
          currencyId: 'ETH',
          postings: moved(user, 'house:adjustments', 'ETH', '1'),
          balanceAfter: dec('0'),
          adminUserId: ADMIN,
          operationKey: 'op-1',
          previousBalance: dec('1'),
          balance: dec('0'),
          at: AT,
          effectiveAt: AT,
        },
      });
    expect(balanceOf(state, 'ETH')).toBe(0n);
  });

  it('when the balance is set to what it already is, then an event without postings remembers the key', () => {
    const state = given(deposited(USER, 'ETH', '1'))
      .when(setBalance('op-1', 'ETH', '1'))
      .then({
        type: 'BalanceSet',
        data: {
          transactionId: 'adj_op-1',
          currencyId: 'ETH',
          postings: [],
          balanceAfter: dec('1'),
          adminUserId: ADMIN,
          operationKey: 'op-1',
          previousBalance: dec('1'),
          balance: dec('1'),
          at: AT,
          effectiveAt: AT,
        },
      });
    expect(state.operations.get('op-1')).toMatchObject({ commandType: 'SetBalance', ref: 'adj_op-1' });
  });

  it('when a set-balance is repeated with its key, then nothing happens even though the balance moved since', () => {
    given(applied(setBalance('op-1', 'ETH', '5'), tipUser(1, 'ETH', '1')))
      .when(setBalance('op-1', 'ETH', '5'))
      .thenNothing();
  });

  it('when a set-balance key is reused with another balance, then it is an idempotency conflict', () => {
    given(applied(setBalance('op-1', 'ETH', '5')))
      .when(setBalance('op-1', 'ETH', '6'))
      .thenFails('IdempotencyConflict', { key: 'op-1' });
  });

  it('when a leaderboard prize is credited, then house:prizes -> user', () => {
    given()
      .when(creditPrize('prize-1', 'USDC', '250', { usdAmount: usd('250') }))
      .then({
        type: 'LeaderboardPrizeCredited',
        data: {
          transactionId: 'prz_prize-1',
          currencyId: 'USDC',
          postings: moved('house:prizes', user, 'USDC', '250'),
          balanceAfter: dec('250'),
          adminUserId: ADMIN,
          operationKey: 'prize-1',
          leaderboardId: 'lb-1',
          leaderboardUserId: 'lbu-1',
          amount: dec('250'),
          usdAmount: dec('250'),
          at: AT,
          effectiveAt: AT,
        },
      });
  });

  it('when a prize is repeated with its key, then nothing happens; with another leaderboard entry, it is a conflict', () => {
    given(applied(creditPrize('prize-1', 'USDC', '250')))
      .when(creditPrize('prize-1', 'USDC', '250'))
      .thenNothing();
    given(applied(creditPrize('prize-1', 'USDC', '250')))
      .when(creditPrize('prize-1', 'USDC', '250', { leaderboardUserId: 'other' }))
      .thenFails('IdempotencyConflict', { key: 'prize-1' });
  });

  it('when an affiliate commission is claimed, then house:affiliate -> user, with the claim as its transaction', () => {
    given()
      .when(claimAffiliate('c-1', 'USDT', '12.345678', { usdAmount: usd('12.35') }))
      .then({
        type: 'AffiliateCommissionClaimed',
        data: {
          transactionId: 'aff_c-1',
          currencyId: 'USDT',
          postings: moved('house:affiliate', user, 'USDT', '12.345678'),
          balanceAfter: dec('12.345678'),
          claimId: 'c-1',
          operationKey: 'affiliate-claim:c-1',
          amount: dec('12.345678'),
          usdAmount: dec('12.35'),
          at: AT,
          effectiveAt: AT,
        },
      });
  });

  it('when a claim is repeated, then nothing happens; with another amount, it is a conflict; a zero claim is refused', () => {
    given(applied(claimAffiliate('c-1', 'USDT', '5')))
      .when(claimAffiliate('c-1', 'USDT', '5'))
      .thenNothing();
    given(applied(claimAffiliate('c-1', 'USDT', '5')))
      .when(claimAffiliate('c-1', 'USDT', '6'))
      .thenFails('IdempotencyConflict', { key: 'affiliate-claim:c-1' });
    given()
      .when(claimAffiliate('c-2', 'USDT', '0'))
      .thenFails('InvalidAmount');
  });
});

describe('decide and evolve together', () => {
  it('when the same command is decided twice on the same state, then the events are identical (no clock, no ids)', () => {
    const state = initialWalletState(USER);
    expect(decide(tipUser(1, 'BTC', '1'), state, META)).toEqual(
      decide(tipUser(1, 'BTC', '1'), state, { userId: USER, now: new Date(NOW) }),
    );
  });

  it('when the metadata names another user than the wallet, then decide throws (a broken invariant, not a refusal)', () => {
    expect(() => decide(tipUser(1, 'BTC', '1'), initialWalletState(2), META)).toThrow(/invariant/);
  });

  it('when an event carries legs of other accounts only, then the wallet balance does not move', () => {
    const state = evolve(initialWalletState(USER), {
      type: 'AdminTipCredited',
      data: {
        transactionId: 'tip_1',
        currencyId: 'BTC',
        postings: moved('house:admin-tips', 'user:2', 'BTC', '1'),
        balanceAfter: dec('1'),
        adminUserId: ADMIN,
        operationKey: 'k',
        tipId: 1,
        amount: dec('1'),
        usdAmount: dec('0'),
        tag: null,
        notes: '',
        at: AT,
      },
    });
    expect(balanceOf(state, 'BTC')).toBe(0n);
  });

  it('when an event names an unknown entry, then evolve still applies its legs and invents no entry', () => {
    const state = evolve(initialWalletState(USER), {
      type: 'DepositCompleted',
      data: {
        transactionId: 'dep_x',
        currencyId: 'BTC',
        postings: moved('house:deposits', user, 'BTC', '1'),
        balanceAfter: dec('1'),
        depositId: 'x',
        amount: dec('1'),
        usdAmount: dec('0'),
        txHash: null,
        at: AT,
      },
    });
    expect(balanceOf(state, 'BTC')).toBe(minor('BTC', '1'));
    expect(state.deposits.has('x')).toBe(false);
  });
});
