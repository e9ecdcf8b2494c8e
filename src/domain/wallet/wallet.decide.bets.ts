import { transfer } from '../ledger/posting.js';
import { divRoundHalfEven, formatDecimal, fromMinor, usdFromMinor, type DecimalString, type Minor } from '../money/money.js';
import type { ErrorBet, PlaceBet, RollbackBet, SettleBet } from './wallet.commands.js';
import {
  accept,
  alreadyDone,
  amountsOf,
  acceptDebit,
  movement,
  mustBeValidAmounts,
  mustNotBeNegative,
  reject,
  repeatOrConflict,
  type DecideContext,
  type Decision,
} from './wallet.decide.shared.js';
import type { BetEntry } from './wallet.state.js';

const MULTIPLIER_SCALE = 8;

/** payout / amount with 8 decimals, rounded half-even, in integers only (both are minor units of one currency). */
export const multiplierOf = (payout: Minor, amount: Minor): DecimalString =>
  formatDecimal(divRoundHalfEven(payout * 10n ** BigInt(MULTIPLIER_SCALE), amount), MULTIPLIER_SCALE);

const samePlacement = (bet: BetEntry, data: PlaceBet['data']): boolean =>
  bet.amount === data.amount && bet.currencyId === data.currencyId && bet.roundId === data.roundId && bet.gameId === data.gameId;

/** CREATED: debits the stake (user -> house:bets). The bet id is the idempotency key. */
export const placeBet = (ctx: DecideContext, { data }: PlaceBet): Decision => {
  const invalid = mustBeValidAmounts(data);
  if (invalid) return reject(invalid);
  const existing = ctx.state.bets.get(data.betId);
  if (existing) {
    return repeatOrConflict(samePlacement(existing, data), data.betId, `bet ${data.betId} was already placed with different values`);
  }
  return acceptDebit(ctx, 'house:bets', data, `bet_${data.betId}`, (accounting) => ({
    type: 'BetPlaced',
    data: {
      ...accounting,
      betId: data.betId,
      roundId: data.roundId,
      gameId: data.gameId,
      gameIdentity: data.gameIdentity,
      ...amountsOf(data),
      ...ctx.times,
    },
  }));
};

type Found = Readonly<{ bet: BetEntry }> | Readonly<{ error: Decision }>;
const findBet = (ctx: DecideContext, betId: string): Found => {
  const bet = ctx.state.bets.get(betId);
  return bet ? { bet } : { error: reject({ _tag: 'BetNotFound', betId }) };
};
const invalidState = (bet: BetEntry, action: string): Decision =>
  reject({ _tag: 'BetInvalidState', betId: bet.id, status: bet.status, action });

/** CREATED -> SETTLED, crediting the payout (house:payouts -> user; none when the payout is zero); repeats the stake. */
export const settleBet = (ctx: DecideContext, { data }: SettleBet): Decision => {
  const invalid = mustNotBeNegative('payout', data.payout) ?? mustNotBeNegative('usdPayout', data.usdPayout);
  if (invalid) return reject(invalid);
  const found = findBet(ctx, data.betId);
  if ('error' in found) return found.error;
  const { bet } = found;
  if (bet.status === 'SETTLED' && bet.payout === data.payout) return alreadyDone;
  if (bet.status !== 'CREATED') return invalidState(bet, 'settle');
  const postings = data.payout > 0n ? transfer('house:payouts', ctx.user, bet.currencyId, data.payout) : [];
  return accept({
    type: 'BetSettled',
    data: {
      ...movement(ctx, bet.currencyId, `win_${bet.id}`, postings),
      betId: bet.id,
      ...amountsOf(bet),
      placedAt: bet.createdAt,
      payout: fromMinor(bet.currencyId, data.payout),
      usdPayout: usdFromMinor(data.usdPayout),
      multiplier: multiplierOf(data.payout, bet.amount),
      ...ctx.times,
    },
  });
};

const refund = (ctx: DecideContext, bet: BetEntry, transactionId: string) => ({
  ...movement(ctx, bet.currencyId, transactionId, transfer('house:bets', ctx.user, bet.currencyId, bet.amount)),
  betId: bet.id,
  amount: fromMinor(bet.currencyId, bet.amount),
  originalId: bet.transactionId,
  ...ctx.times,
});

/** CREATED -> ROLLBACK, refunding the stake; rolling back a ROLLBACK bet again is a no-op. */
export const rollbackBet = (ctx: DecideContext, { data }: RollbackBet): Decision => {
  const found = findBet(ctx, data.betId);
  if ('error' in found) return found.error;
  const { bet } = found;
  if (bet.status === 'ROLLBACK') return alreadyDone;
  if (bet.status !== 'CREATED') return invalidState(bet, 'rollback');
  return accept({ type: 'BetRolledBack', data: refund(ctx, bet, `rb_${bet.id}`) });
};

/** CREATED -> ERROR, refunding the stake and recording why; erroring an ERROR bet again is a no-op. */
export const errorBet = (ctx: DecideContext, { data }: ErrorBet): Decision => {
  const found = findBet(ctx, data.betId);
  if ('error' in found) return found.error;
  const { bet } = found;
  if (bet.status === 'ERROR') return alreadyDone;
  if (bet.status !== 'CREATED') return invalidState(bet, 'error');
  return accept({ type: 'BetErrored', data: { ...refund(ctx, bet, `err_${bet.id}`), errorDetails: data.errorDetails } });
};
