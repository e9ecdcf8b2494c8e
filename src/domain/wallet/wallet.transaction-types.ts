import type { WalletEvent } from './wallet.events.js';

/** Events that carry postings. */
export const MOVEMENT_EVENT_TYPES = [
  'DepositCompleted',
  'DepositReleased',
  'DepositReturned',
  'BetPlaced',
  'BetSettled',
  'BetRolledBack',
  'BetErrored',
  'WithdrawalRequested',
  'WithdrawalRejected',
  'WithdrawalCompleted',
  'AdminTipCredited',
  'AdminTipDeducted',
  'BalanceSet',
  'LeaderboardPrizeCredited',
  'AffiliateCommissionClaimed',
] as const satisfies readonly WalletEvent['type'][];

type MovementType = (typeof MOVEMENT_EVENT_TYPES)[number];

/** The accounting type of each money event, from the user's point of view (null: never touches the user). */
export const TRANSACTION_TYPES = {
  DepositCompleted: 'DEPOSIT',
  // A held deposit reaching the player's balance is their deposit, credited late; a returned one never touches it.
  DepositReleased: 'DEPOSIT',
  DepositReturned: null,
  BetPlaced: 'BET',
  BetSettled: 'BET_PAYOUT',
  BetRolledBack: 'ROLLBACK_BET',
  BetErrored: 'BET_ERROR_REFUND',
  WithdrawalRequested: 'WITHDRAW',
  WithdrawalRejected: 'WITHDRAW_REFUND',
  WithdrawalCompleted: null,
  AdminTipCredited: 'ADMIN_TIP',
  AdminTipDeducted: 'ADMIN_DEDUCT',
  BalanceSet: 'BALANCE_SET',
  LeaderboardPrizeCredited: 'LEADERBOARD_PRIZE',
  AffiliateCommissionClaimed: 'AFFILIATE_CLAIM',
} as const satisfies Record<MovementType, string | null>;

export type AccountingType = Exclude<(typeof TRANSACTION_TYPES)[MovementType], null>;
/** Every accounting type, in the order above: the one list the transactions filter and the read model's check follow. */
export const ACCOUNTING_TYPES = Object.values(TRANSACTION_TYPES).filter(
  (t): t is AccountingType => t !== null,
) as readonly AccountingType[] as readonly [AccountingType, ...AccountingType[]];
