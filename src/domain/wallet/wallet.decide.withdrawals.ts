import { transfer } from '../ledger/posting.js';
import { fromMinor } from '../money/money.js';
import type {
  ApproveWithdrawal,
  CompleteWithdrawal,
  FailWithdrawal,
  RejectWithdrawal,
  RequestWithdrawal,
  RetryWithdrawal,
} from './wallet.commands.js';
import {
  accept,
  alreadyDone,
  amountsOf,
  acceptDebit,
  movement,
  mustBeValidAmounts,
  precheck,
  reject,
  repeatOrConflict,
  type DecideContext,
  type Decision,
} from './wallet.decide.shared.js';
import type { WithdrawalStatus } from './wallet.events.js';
import { operationFingerprint, type WithdrawalEntry } from './wallet.state.js';

/** PENDING: holds the funds (user -> house:withdrawals-held). Idempotent on its operation key and on its id. */
export const requestWithdrawal = (ctx: DecideContext, { type, data }: RequestWithdrawal): Decision => {
  const fingerprint = operationFingerprint(data.currencyId, data.amount, data.networkId, data.recipientAddress);
  const early = precheck(ctx, type, data.operationKey, fingerprint, mustBeValidAmounts(data));
  if (early) return early;
  const existing = ctx.state.withdrawals.get(data.withdrawalId);
  if (existing) {
    return repeatOrConflict(
      operationFingerprint(existing.currencyId, existing.amount, existing.networkId, existing.recipientAddress) === fingerprint,
      data.withdrawalId,
      `withdrawal ${data.withdrawalId} was already requested with different values`,
    );
  }
  return acceptDebit(ctx, 'house:withdrawals-held', data, `wd_${data.withdrawalId}`, (accounting) => ({
    type: 'WithdrawalRequested',
    data: {
      ...accounting,
      withdrawalId: data.withdrawalId,
      operationKey: data.operationKey,
      ...amountsOf(data),
      networkId: data.networkId,
      providerId: data.providerId,
      recipientAddress: data.recipientAddress,
      recipientMemo: data.recipientMemo,
      ...(data.heldForReview ? { heldForReview: true } : {}),
      ...ctx.times,
    },
  }));
};

/** The withdrawal, when in one of `from`: admin transitions are not idempotent, so a repeat is refused too. */
const inState = (
  ctx: DecideContext,
  withdrawalId: string,
  action: string,
  from: readonly WithdrawalStatus[],
): Readonly<{ withdrawal: WithdrawalEntry }> | Readonly<{ refused: Decision }> => {
  const withdrawal = ctx.state.withdrawals.get(withdrawalId);
  if (!withdrawal) return { refused: reject({ _tag: 'WithdrawalNotFound', withdrawalId }) };
  if (!from.includes(withdrawal.status)) {
    return { refused: reject({ _tag: 'WithdrawalInvalidState', withdrawalId, status: withdrawal.status, action }) };
  }
  return { withdrawal };
};

export const approveWithdrawal = (ctx: DecideContext, { data }: ApproveWithdrawal): Decision => {
  const found = inState(ctx, data.withdrawalId, 'approve', ['PENDING']);
  if ('refused' in found) return found.refused;
  return accept({ type: 'WithdrawalApproved', data: { withdrawalId: data.withdrawalId, adminUserId: data.adminUserId, ...ctx.times } });
};

export const retryWithdrawal = (ctx: DecideContext, { data }: RetryWithdrawal): Decision => {
  const found = inState(ctx, data.withdrawalId, 'retry', ['FAILED']);
  if ('refused' in found) return found.refused;
  return accept({ type: 'WithdrawalRetried', data: { withdrawalId: data.withdrawalId, adminUserId: data.adminUserId, ...ctx.times } });
};

export const rejectWithdrawal = (ctx: DecideContext, { data }: RejectWithdrawal): Decision => {
  const found = inState(ctx, data.withdrawalId, 'reject', ['PENDING', 'FAILED']);
  if ('refused' in found) return found.refused;
  const { withdrawal: w } = found;
  const postings = transfer('house:withdrawals-held', ctx.user, w.currencyId, w.amount);
  return accept({
    type: 'WithdrawalRejected',
    data: {
      ...movement(ctx, w.currencyId, `wdr_${w.id}`, postings),
      withdrawalId: w.id,
      adminUserId: data.adminUserId,
      rejectReason: data.rejectReason,
      amount: fromMinor(w.currencyId, w.amount),
      ...ctx.times,
    },
  });
};

/** CONFIRMED -> COMPLETE (house:withdrawals-held -> house:withdrawals); the provider repeating the same txHash is a no-op. */
export const completeWithdrawal = (ctx: DecideContext, { data }: CompleteWithdrawal): Decision => {
  const existing = ctx.state.withdrawals.get(data.withdrawalId);
  if (existing?.status === 'COMPLETE' && existing.txHash === data.txHash) return alreadyDone;
  const found = inState(ctx, data.withdrawalId, 'complete', ['CONFIRMED']);
  if ('refused' in found) return found.refused;
  const { withdrawal: w } = found;
  const postings = transfer('house:withdrawals-held', 'house:withdrawals', w.currencyId, w.amount);
  return accept({
    type: 'WithdrawalCompleted',
    data: {
      ...movement(ctx, w.currencyId, `wdc_${w.id}`, postings),
      withdrawalId: w.id,
      txHash: data.txHash,
      ...amountsOf(w),
      ...ctx.times,
    },
  });
};

/** CONFIRMED -> FAILED (funds stay held); the provider repeating the same failure is a no-op. */
export const failWithdrawal = (ctx: DecideContext, { data }: FailWithdrawal): Decision => {
  const existing = ctx.state.withdrawals.get(data.withdrawalId);
  if (existing?.status === 'FAILED' && existing.failedReason === data.failedReason) return alreadyDone;
  const found = inState(ctx, data.withdrawalId, 'fail', ['CONFIRMED']);
  if ('refused' in found) return found.refused;
  return accept({ type: 'WithdrawalFailed', data: { withdrawalId: data.withdrawalId, failedReason: data.failedReason, ...ctx.times } });
};
