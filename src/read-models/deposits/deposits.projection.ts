import { DEPOSITS_COUNTS, counted } from '../list-counts/list-counts.js';
import { EntityFold, entityStatements, walletRecords, type Projection } from '../../projections/projection.js';

const HANDLES: readonly string[] = ['DepositRequested', 'DepositConfirmed', 'DepositCompleted', 'DepositFailed'];
const PATCHABLE = [
  'status',
  'tx_hash',
  'transaction_id',
  'amount',
  'usd_amount',
  'failed_reason',
  'updated_at',
  'confirmed_at',
  'completed_at',
];

/** Deposits: PENDING -> CONFIRMED -> COMPLETE (credited; transaction_id set), or FAILED. */
export const depositsProjection: Projection = {
  name: 'deposits',
  version: 2,
  handles: HANDLES,
  tables: ['deposits', 'deposits_counts'],
  project(events) {
    const fold = new EntityFold();
    for (const { userId, event } of walletRecords(events, HANDLES)) {
      switch (event.type) {
        case 'DepositRequested': {
          const d = event.data;
          fold.create(d.depositId, {
            id: d.depositId,
            user_id: userId,
            external_id: d.externalId,
            provider_id: d.providerId,
            network_id: d.networkId,
            currency_id: d.currencyId,
            amount: d.amount,
            usd_amount: d.usdAmount,
            status: 'PENDING',
            tx_hash: d.txHash,
            pay_address: d.payAddress,
            pay_memo: d.payMemo,
            transaction_id: null,
            failed_reason: null,
            affiliate_amount: null,
            deposit_bonus: null,
            affiliate_code_id: null,
            created_at: d.at,
            updated_at: d.at,
            confirmed_at: null,
            completed_at: null,
          });
          break;
        }
        case 'DepositConfirmed': {
          const d = event.data;
          fold.patch(d.depositId, {
            status: 'CONFIRMED',
            confirmed_at: d.at,
            updated_at: d.at,
            ...(d.txHash ? { tx_hash: d.txHash } : {}),
          });
          break;
        }
        case 'DepositCompleted': {
          const d = event.data;
          fold.patch(d.depositId, {
            status: 'COMPLETE',
            completed_at: d.at,
            updated_at: d.at,
            transaction_id: d.transactionId,
            amount: d.amount,
            usd_amount: d.usdAmount,
            ...(d.txHash ? { tx_hash: d.txHash } : {}),
          });
          break;
        }
        case 'DepositFailed':
          fold.patch(event.data.depositId, { status: 'FAILED', failed_reason: event.data.reason, updated_at: event.data.at });
          break;
      }
    }
    return counted(DEPOSITS_COUNTS, fold.inserts(), fold.patches('id'), entityStatements('deposits', 'id', fold, PATCHABLE));
  },
};
