import { TRANSACTIONS_COUNTS } from '../list-counts/list-counts.js';
import { rowProjection } from '../list-projections.js';
import { formatPosition } from '../../infra/event-store/event-store.port.js';
import { fromMinor, toMinor } from '../../domain/money/money.js';
import { businessTimeOf, hasMovement, type WalletEvent } from '../../domain/wallet/wallet.events.js';
import { userLegAmount } from '../../projections/projection.js';
import { MOVEMENT_EVENT_TYPES, TRANSACTION_TYPES } from '../../domain/wallet/wallet.transaction-types.js';

type MovementType = (typeof MOVEMENT_EVENT_TYPES)[number];

/** Ids and amounts that differ per event type: what the row refers to, the reversed transaction, the USD value. */
const details = (e: WalletEvent): { reference: string | null; original: string | null; admin: number | null; usd: string | null } => {
  switch (e.type) {
    case 'DepositCompleted':
      return { reference: e.data.depositId, original: null, admin: null, usd: e.data.usdAmount };
    case 'DepositReleased':
      return { reference: e.data.depositId, original: null, admin: e.data.adminUserId, usd: e.data.usdAmount };
    case 'BetPlaced':
      return { reference: e.data.betId, original: null, admin: null, usd: e.data.usdAmount };
    case 'BetSettled':
      return { reference: e.data.betId, original: null, admin: null, usd: e.data.usdPayout };
    case 'BetRolledBack':
    case 'BetErrored':
      return { reference: e.data.betId, original: e.data.originalId, admin: null, usd: null };
    case 'WithdrawalRequested':
      return { reference: e.data.withdrawalId, original: null, admin: null, usd: e.data.usdAmount };
    case 'WithdrawalRejected':
      return { reference: e.data.withdrawalId, original: null, admin: e.data.adminUserId, usd: null };
    case 'AdminTipCredited':
    case 'AdminTipDeducted':
      return { reference: String(e.data.tipId), original: null, admin: e.data.adminUserId, usd: e.data.usdAmount };
    case 'BalanceSet':
      return { reference: null, original: null, admin: e.data.adminUserId, usd: null };
    case 'LeaderboardPrizeCredited':
      return { reference: e.data.leaderboardUserId, original: null, admin: e.data.adminUserId, usd: e.data.usdAmount };
    case 'AffiliateCommissionClaimed':
      return { reference: e.data.claimId, original: null, admin: null, usd: e.data.usdAmount };
    default:
      return { reference: null, original: null, admin: null, usd: null };
  }
};

/** The accounting log (spec "Transaction"): a row per event moving the user's balance, amount signed, before = after − amount. */
export const transactionsProjection = rowProjection({
  name: 'transactions',
  version: 2,
  handles: MOVEMENT_EVENT_TYPES,
  list: TRANSACTIONS_COUNTS,
  row: ({ userId, event, recorded }) => {
    const type = TRANSACTION_TYPES[event.type as MovementType];
    const amount = userLegAmount(userId, event);
    if (!type || amount === undefined || !hasMovement(event)) return undefined;
    const d = event.data;
    const x = details(event);
    return {
      id: d.transactionId,
      user_id: userId,
      currency_id: d.currencyId,
      amount: fromMinor(d.currencyId, amount),
      before_balance: fromMinor(d.currencyId, toMinor(d.currencyId, d.balanceAfter) - amount),
      after_balance: d.balanceAfter,
      usd_amount: x.usd,
      type,
      original_id: x.original,
      admin_user_id: x.admin,
      reference_id: x.reference,
      event_id: recorded.id,
      position: formatPosition(recorded.position),
      position_commit: String(recorded.position.commit),
      position_prepare: String(recorded.position.prepare),
      created_at: d.at,
      effective_at: businessTimeOf(d),
      updated_at: d.at,
    };
  },
});
