import { DEPOSITS_COUNTS } from '../../read-models/list-counts/list-counts.js';
import { entityProjection } from '../../read-models/list-projections.js';
import { businessTimeOf } from '../../domain/wallet/wallet.events.js';

/** A deposit reaching `status` at `at`, recorded in `column`; a transaction hash that comes with it replaces the one known. */
const reached = (status: string, column: string, d: Readonly<{ at: string; txHash: string | null }>) => ({
  status,
  [column]: d.at,
  updated_at: d.at,
  ...(d.txHash ? { tx_hash: d.txHash } : {}),
});

/**
 * Deposits: PENDING -> CONFIRMED -> COMPLETE (credited; transaction_id set), or FAILED. `hold`: HELD when it completed
 * past the deposit limit, then RELEASED or RETURNED by an admin (the status stays COMPLETE).
 */
export const depositsProjection = entityProjection({
  name: 'deposits',
  version: 3,
  list: DEPOSITS_COUNTS,
  patchable: [
    'status',
    'tx_hash',
    'transaction_id',
    'amount',
    'usd_amount',
    'failed_reason',
    'updated_at',
    'confirmed_at',
    'completed_at',
    'hold',
  ],
  id: (d) => d.depositId,
  create: {
    DepositRequested: (d, { userId }) => ({
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
      effective_at: businessTimeOf(d),
      updated_at: d.at,
      confirmed_at: null,
      completed_at: null,
      hold: null,
    }),
  },
  patch: {
    DepositConfirmed: (d) => reached('CONFIRMED', 'confirmed_at', d),
    DepositCompleted: (d) => ({
      ...reached('COMPLETE', 'completed_at', d),
      transaction_id: d.transactionId,
      amount: d.amount,
      usd_amount: d.usdAmount,
      ...(d.held ? { hold: 'HELD' } : {}),
    }),
    DepositReleased: (d) => ({ hold: 'RELEASED', updated_at: d.at }),
    DepositReturned: (d) => ({ hold: 'RETURNED', updated_at: d.at }),
    DepositFailed: (d) => ({ status: 'FAILED', failed_reason: d.reason, updated_at: d.at }),
  },
});
