import { isLeft, right } from 'fp-ts/lib/Either.js';
import { transfer } from '../ledger/posting.js';
import { fromMinor } from '../money/money.js';
import type { ClaimAffiliateCommission, CreditPrize, DeductBalance, SetBalance, TipUser } from './wallet.commands.js';
import {
  accept,
  amountsOf,
  debitUser,
  movement,
  mustBeValidAmounts,
  mustNotBeNegative,
  precheck,
  type DecideContext,
  type Decision,
} from './wallet.decide.shared.js';
import { balanceOf, operationFingerprint } from './wallet.state.js';

/** Admin tips: ADD_BALANCE (house:admin-tips -> user) and DEDUCT_BALANCE (the reverse, never below zero). */
const adminTip = (ctx: DecideContext, { type, data }: TipUser | DeductBalance): Decision => {
  const early = precheck(ctx, type, data.operationKey, operationFingerprint(data.currencyId, data.amount), mustBeValidAmounts(data));
  if (early) return early;
  const credit = type === 'TipUser';
  const postings = credit
    ? right(transfer('house:admin-tips', ctx.user, data.currencyId, data.amount))
    : debitUser(ctx, 'house:admin-tips', data.currencyId, data.amount);
  if (isLeft(postings)) return postings;
  const fields = {
    ...movement(ctx, data.currencyId, `${credit ? 'tip' : 'ded'}_${data.tipId}`, postings.right),
    adminUserId: data.adminUserId,
    operationKey: data.operationKey,
    tipId: data.tipId,
    ...amountsOf(data),
    tag: data.tag,
    notes: data.notes,
    ...ctx.times,
  };
  return accept(credit ? { type: 'AdminTipCredited', data: fields } : { type: 'AdminTipDeducted', data: fields });
};

export const tipUser = (ctx: DecideContext, command: TipUser): Decision => adminTip(ctx, command);
export const deductBalance = (ctx: DecideContext, command: DeductBalance): Decision => adminTip(ctx, command);

/** Setting the balance it already has still records an event (no legs), so the operation key is remembered. */
export const setBalance = (ctx: DecideContext, { type, data }: SetBalance): Decision => {
  const early = precheck(
    ctx,
    type,
    data.operationKey,
    operationFingerprint(data.currencyId, data.balance),
    mustNotBeNegative('balance', data.balance),
  );
  if (early) return early;
  const previous = balanceOf(ctx.state, data.currencyId);
  const diff = data.balance - previous;
  const postings =
    diff === 0n
      ? []
      : diff > 0n
        ? transfer('house:adjustments', ctx.user, data.currencyId, diff)
        : transfer(ctx.user, 'house:adjustments', data.currencyId, -diff);
  return accept({
    type: 'BalanceSet',
    data: {
      ...movement(ctx, data.currencyId, `adj_${data.operationKey}`, postings),
      adminUserId: data.adminUserId,
      operationKey: data.operationKey,
      previousBalance: fromMinor(data.currencyId, previous),
      balance: fromMinor(data.currencyId, data.balance),
      ...ctx.times,
    },
  });
};

export const creditPrize = (ctx: DecideContext, { type, data }: CreditPrize): Decision => {
  const fingerprint = operationFingerprint(data.currencyId, data.amount, data.leaderboardId, data.leaderboardUserId);
  const early = precheck(ctx, type, data.operationKey, fingerprint, mustBeValidAmounts(data));
  if (early) return early;
  const postings = transfer('house:prizes', ctx.user, data.currencyId, data.amount);
  return accept({
    type: 'LeaderboardPrizeCredited',
    data: {
      ...movement(ctx, data.currencyId, `prz_${data.operationKey}`, postings),
      adminUserId: data.adminUserId,
      operationKey: data.operationKey,
      leaderboardId: data.leaderboardId,
      leaderboardUserId: data.leaderboardUserId,
      ...amountsOf(data),
      ...ctx.times,
    },
  });
};

export const claimAffiliateCommission = (ctx: DecideContext, { type, data }: ClaimAffiliateCommission): Decision => {
  const fingerprint = operationFingerprint(data.currencyId, data.amount, data.claimId);
  const early = precheck(ctx, type, data.operationKey, fingerprint, mustBeValidAmounts(data));
  if (early) return early;
  const postings = transfer('house:affiliate', ctx.user, data.currencyId, data.amount);
  return accept({
    type: 'AffiliateCommissionClaimed',
    data: {
      ...movement(ctx, data.currencyId, `aff_${data.claimId}`, postings),
      claimId: data.claimId,
      operationKey: data.operationKey,
      ...amountsOf(data),
      ...ctx.times,
    },
  });
};
