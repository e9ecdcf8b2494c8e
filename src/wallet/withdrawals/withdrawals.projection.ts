import { WITHDRAWALS_COUNTS } from '../../read-models/list-counts/list-counts.js';
import { entityProjection } from '../../read-models/list-projections.js';
import { businessTimeOf } from '../../domain/wallet/wallet.events.js';

/** An approval, first or after a failure: the last one's admin and time are kept. */
const approved = (d: Readonly<{ adminUserId: number; at: string }>) => ({
  status: 'CONFIRMED',
  confirmed_at: d.at,
  confirmed_by_user_id: d.adminUserId,
  updated_at: d.at,
});

/**
 * Withdrawals: PENDING -> CONFIRMED (approve: confirmed_at, confirmed_by_user_id) -> COMPLETE (tx_hash)
 * or FAILED (failed_reason) -> retry -> CONFIRMED (the last approval's admin and time; failed_reason cleared);
 * reject from PENDING or FAILED -> DENIED (reject_reason).
 */
export const withdrawalsProjection = entityProjection({
  name: 'withdrawals',
  version: 2,
  list: WITHDRAWALS_COUNTS,
  patchable: ['status', 'tx_hash', 'reject_reason', 'failed_reason', 'confirmed_at', 'confirmed_by_user_id', 'updated_at', 'completed_at'],
  id: (d) => d.withdrawalId,
  create: {
    WithdrawalRequested: (d, { userId }) => ({
      id: d.withdrawalId,
      user_id: userId,
      currency_id: d.currencyId,
      network_id: d.networkId,
      provider_id: d.providerId,
      amount: d.amount,
      usd_amount: d.usdAmount,
      status: 'PENDING',
      recipient_address: d.recipientAddress,
      recipient_memo: d.recipientMemo,
      operation_key: d.operationKey,
      transaction_id: d.transactionId,
      tx_hash: null,
      reject_reason: null,
      failed_reason: null,
      confirmations: 0,
      confirmed_at: null,
      confirmed_by_user_id: null,
      created_at: d.at,
      effective_at: businessTimeOf(d),
      updated_at: d.at,
      completed_at: null,
    }),
  },
  patch: {
    WithdrawalApproved: approved,
    WithdrawalRetried: (d) => ({ ...approved(d), failed_reason: null }),
    WithdrawalRejected: (d) => ({ status: 'DENIED', reject_reason: d.rejectReason, updated_at: d.at }),
    WithdrawalCompleted: (d) => ({ status: 'COMPLETE', tx_hash: d.txHash, completed_at: d.at, updated_at: d.at }),
    WithdrawalFailed: (d) => ({ status: 'FAILED', failed_reason: d.failedReason, updated_at: d.at }),
  },
});
