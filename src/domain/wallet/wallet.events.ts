import type { CurrencyId } from '../money/currency.js';
import type { DecimalString } from '../money/money.js';
import type { Posting } from '../ledger/posting.js';

/** The wallet stream of one user: every balance change of that user, in every currency. */
export const walletStream = (userId: number): string => `wallet-${userId}`;
export const walletStreamUserId = (streamId: string): number | undefined => {
  const m = /^wallet-(\d+)$/.exec(streamId);
  return m ? Number(m[1]) : undefined;
};

export const DEPOSIT_STATUSES = ['PENDING', 'CONFIRMED', 'COMPLETE', 'FAILED'] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];
export const WITHDRAWAL_STATUSES = ['PENDING', 'CONFIRMED', 'COMPLETE', 'DENIED', 'FAILED'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];
export const BET_STATUSES = ['CREATED', 'SETTLED', 'ERROR', 'ROLLBACK'] as const;
export type BetStatus = (typeof BET_STATUSES)[number];

export const ADMIN_TIP_TAGS = [
  'STREAM_FILL',
  'VIDEO_FILL',
  'PRIVATE_LB_PAYOUT',
  'LOSSBACK',
  'SOCIAL_GIVEAWAY_A',
  'SOCIAL_GIVEAWAY_B',
  'PRIVATE_GIVEAWAY',
  'CUSTOM_DEPOSIT_BONUS',
  'SALARY',
  'TESTING',
  'OTHER',
] as const;
export type AdminTipTag = (typeof ADMIN_TIP_TAGS)[number];

export type GameIdentity = Readonly<{ name: string; slug: string; type: string; provider: Readonly<{ name: string }> }>;

// What a request states, kept as sent: in minor units in commands and wallet state, as decimal strings in events and views.
export type DepositTerms<Amount> = Readonly<{
  externalId: string;
  providerId: string;
  networkId: string;
  currencyId: CurrencyId;
  amount: Amount;
  usdAmount: Amount;
  txHash: string | null;
  payAddress: string | null;
  payMemo: string | null;
}>;
export type BetTerms<Amount> = Readonly<{
  roundId: string;
  gameId: number;
  gameIdentity: GameIdentity;
  currencyId: CurrencyId;
  amount: Amount;
  usdAmount: Amount;
}>;
export type WithdrawalTerms<Amount> = Readonly<{
  currencyId: CurrencyId;
  networkId: string;
  providerId: string;
  amount: Amount;
  usdAmount: Amount;
  recipientAddress: string;
  recipientMemo: string | null;
}>;

/** What every balance-changing event carries: its unique accounting transaction, its double-entry legs and the balance after. */
type Movement = Readonly<{
  transactionId: string;
  currencyId: CurrencyId;
  postings: readonly Posting[];
  balanceAfter: DecimalString;
}>;

/**
 * The two times of an event, ISO 8601. `at`: when it was decided and recorded (the command's metadata.now).
 * `effectiveAt`: its business time (when the game server placed the bet, the provider confirmed, the admin acted).
 * decide writes both on every event; events recorded before business time existed have only `at`, so readers
 * take the business time from businessTimeOf, never from the field.
 */
export type EventTimes = Readonly<{ at: string; effectiveAt?: string }>;
type At = EventTimes;

/** The business time of an event: its effectiveAt, or its recording time for events that predate the field. */
export const businessTimeOf = (data: EventTimes): string => data.effectiveAt ?? data.at;
/** Admin-issued operations record the acting admin and the idempotency key they were sent with. */
type AdminOperation = Readonly<{ adminUserId: number; operationKey: string }>;

type E<T extends string, D> = Readonly<{ type: T; data: Readonly<D & At> }>;

/** `overLimit`: recorded past the player's deposit limit because the money had already moved (docs/compliance.md). */
export type DepositRequested = E<'DepositRequested', { depositId: string; overLimit?: boolean } & DepositTerms<DecimalString>>;
export type DepositConfirmed = E<'DepositConfirmed', { depositId: string; txHash: string | null }>;
/** Credits the wallet: house:deposits -> user; `held`: house:deposits -> house:deposits-held (the deposit was over limit). */
export type DepositCompleted = E<
  'DepositCompleted',
  Movement & { depositId: string; amount: DecimalString; usdAmount: DecimalString; txHash: string | null; held?: boolean }
>;
export type DepositFailed = E<'DepositFailed', { depositId: string; reason: string }>;
/** What a held deposit's settlement became: released to the player or returned to its payer. */
export const HELD_DEPOSIT_SETTLEMENTS = ['RELEASED', 'RETURNED'] as const;
export type HeldDepositSettlement = (typeof HELD_DEPOSIT_SETTLEMENTS)[number];
type HeldDepositSettled = Movement & {
  depositId: string;
  adminUserId: number;
  reason: string;
  amount: DecimalString;
  usdAmount: DecimalString;
};
/** A held deposit released to the player by an admin: house:deposits-held -> user. Not checked against the limit again. */
export type DepositReleased = E<'DepositReleased', HeldDepositSettled>;
/** A held deposit returned to its payer outside the ledger: house:deposits-held -> house:deposits-returned. */
export type DepositReturned = E<'DepositReturned', HeldDepositSettled>;

/** Debits the stake: user -> house:bets. */
export type BetPlaced = E<'BetPlaced', Movement & { betId: string } & BetTerms<DecimalString>>;
/** Credits the payout (house:payouts -> user; no legs when zero), repeating the stake and placement time: consumers keep no open bets. */
export type BetSettled = E<
  'BetSettled',
  Movement & {
    betId: string;
    amount: DecimalString;
    usdAmount: DecimalString;
    /** the BetPlaced time (ISO 8601) */ placedAt: string;
    payout: DecimalString;
    usdPayout: DecimalString;
    /** payout / amount, as a decimal string */ multiplier: DecimalString;
  }
>;
/** Refunds the stake, tagged ROLLBACK_BET; `originalId` is the placement's transaction id. */
export type BetRolledBack = E<'BetRolledBack', Movement & { betId: string; amount: DecimalString; originalId: string }>;
/** The game failed: refunds the stake and records why. */
export type BetErrored = E<'BetErrored', Movement & { betId: string; amount: DecimalString; originalId: string; errorDetails: string }>;

/** Holds the funds: user -> house:withdrawals-held. */
export type WithdrawalRequested = E<
  'WithdrawalRequested',
  Movement & { withdrawalId: string; operationKey: string; heldForReview?: boolean } & WithdrawalTerms<DecimalString>
>;
export type WithdrawalApproved = E<'WithdrawalApproved', { withdrawalId: string; adminUserId: number }>;
export type WithdrawalRetried = E<'WithdrawalRetried', { withdrawalId: string; adminUserId: number }>;
/** Returns the held funds: house:withdrawals-held -> user. */
export type WithdrawalRejected = E<
  'WithdrawalRejected',
  Movement & { withdrawalId: string; adminUserId: number; rejectReason: string; amount: DecimalString }
>;
/** The provider sent the funds: house:withdrawals-held -> house:withdrawals (user balance unchanged). Repeats the requested amounts. */
export type WithdrawalCompleted = E<
  'WithdrawalCompleted',
  Movement & { withdrawalId: string; txHash: string; amount: DecimalString; usdAmount: DecimalString }
>;
export type WithdrawalFailed = E<'WithdrawalFailed', { withdrawalId: string; failedReason: string }>;

type AdminTip = Movement &
  AdminOperation & { tipId: number; amount: DecimalString; usdAmount: DecimalString; tag: AdminTipTag | null; notes: string };
/** ADD_BALANCE tip: house:admin-tips -> user. */
export type AdminTipCredited = E<'AdminTipCredited', AdminTip>;
/** DEDUCT_BALANCE: user -> house:admin-tips. */
export type AdminTipDeducted = E<'AdminTipDeducted', AdminTip>;
/** SuperAdmin set-balance: the difference moves between house:adjustments and the user. */
export type BalanceSet = E<'BalanceSet', Movement & AdminOperation & { previousBalance: DecimalString; balance: DecimalString }>;
/** Leaderboard prize paid: house:prizes -> user. */
export type LeaderboardPrizeCredited = E<
  'LeaderboardPrizeCredited',
  Movement &
    AdminOperation & {
      leaderboardId: string;
      leaderboardUserId: string;
      amount: DecimalString;
      usdAmount: DecimalString;
    }
>;

/** Affiliate commission claimed by its earner: house:affiliate -> user (internal ledger API). */
export type AffiliateCommissionClaimed = E<
  'AffiliateCommissionClaimed',
  Movement & {
    claimId: string;
    operationKey: string;
    amount: DecimalString;
    usdAmount: DecimalString;
  }
>;

export type WalletEvent =
  | DepositRequested
  | DepositConfirmed
  | DepositCompleted
  | DepositFailed
  | DepositReleased
  | DepositReturned
  | BetPlaced
  | BetSettled
  | BetRolledBack
  | BetErrored
  | WithdrawalRequested
  | WithdrawalApproved
  | WithdrawalRetried
  | WithdrawalRejected
  | WithdrawalCompleted
  | WithdrawalFailed
  | AdminTipCredited
  | AdminTipDeducted
  | BalanceSet
  | LeaderboardPrizeCredited
  | AffiliateCommissionClaimed;

export type WalletEventType = WalletEvent['type'];
export type WalletEventOf<T extends WalletEventType> = Extract<WalletEvent, { type: T }>;

/** A withdrawal's events, from its request on. */
export const WITHDRAWAL_EVENT_TYPES = [
  'WithdrawalRequested',
  'WithdrawalApproved',
  'WithdrawalRetried',
  'WithdrawalRejected',
  'WithdrawalCompleted',
  'WithdrawalFailed',
] as const satisfies readonly WalletEventType[];

export const WALLET_EVENT_TYPES = [
  'DepositRequested',
  'DepositConfirmed',
  'DepositCompleted',
  'DepositFailed',
  'DepositReleased',
  'DepositReturned',
  'BetPlaced',
  'BetSettled',
  'BetRolledBack',
  'BetErrored',
  ...WITHDRAWAL_EVENT_TYPES,
  'AdminTipCredited',
  'AdminTipDeducted',
  'BalanceSet',
  'LeaderboardPrizeCredited',
  'AffiliateCommissionClaimed',
] as const satisfies readonly WalletEventType[];

export const isWalletEventType = (t: string): t is WalletEventType => (WALLET_EVENT_TYPES as readonly string[]).includes(t);

export const hasMovement = (e: WalletEvent): e is Extract<WalletEvent, { data: { postings: readonly Posting[] } }> => 'postings' in e.data;
