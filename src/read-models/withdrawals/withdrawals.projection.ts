import { WITHDRAWALS_COUNTS, counted } from '../list-counts/list-counts.js';
import { EntityFold, entityStatements, walletRecords, type Projection } from '../../projections/projection.js';
import { WITHDRAWAL_EVENT_TYPES as HANDLES } from '../../domain/wallet/wallet.events.js';

const PATCHABLE = [
  'status',
  'tx_hash',
  'reject_reason',
  'failed_reason',
  'confirmed_at',
  'confirmed_by_user_id',
  'updated_at',
  'completed_at',
];

/**
 * Withdrawals: PENDING -> CONFIRMED (approve: confirmed_at, confirmed_by_user_id) -> COMPLETE (tx_hash)
 * or FAILED (failed_reason) -> retry -> CONFIRMED (the last approval's admin and time; failed_reason cleared);
 * reject from PENDING or FAILED -> DENIED (reject_reason).
 */
export const withdrawalsProjection: Projection = {
  name: 'withdrawals',
  version: 2,
  handles: HANDLES,
  tables: ['withdrawals', 'withdrawals_counts'],
  project(events) {
    const fold = new EntityFold();
    for (const { userId, event } of walletRecords(events, HANDLES)) {
      const at = event.data.at;
      switch (event.type) {
        case 'WithdrawalRequested': {
          const d = event.data;
          fold.create(d.withdrawalId, {
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
            created_at: at,
            updated_at: at,
            completed_at: null,
          });
          break;
        }
        case 'WithdrawalApproved':
          fold.patch(event.data.withdrawalId, {
            status: 'CONFIRMED',
            confirmed_at: at,
            confirmed_by_user_id: event.data.adminUserId,
            updated_at: at,
          });
          break;
        case 'WithdrawalRetried':
          fold.patch(event.data.withdrawalId, {
            status: 'CONFIRMED',
            confirmed_at: at,
            confirmed_by_user_id: event.data.adminUserId,
            failed_reason: null,
            updated_at: at,
          });
          break;
        case 'WithdrawalRejected':
          fold.patch(event.data.withdrawalId, { status: 'DENIED', reject_reason: event.data.rejectReason, updated_at: at });
          break;
        case 'WithdrawalCompleted':
          fold.patch(event.data.withdrawalId, { status: 'COMPLETE', tx_hash: event.data.txHash, completed_at: at, updated_at: at });
          break;
        case 'WithdrawalFailed':
          fold.patch(event.data.withdrawalId, { status: 'FAILED', failed_reason: event.data.failedReason, updated_at: at });
          break;
      }
    }
    return counted(WITHDRAWALS_COUNTS, fold.inserts(), fold.patches('id'), entityStatements('withdrawals', 'id', fold, PATCHABLE));
  },
};
