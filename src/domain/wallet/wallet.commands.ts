import type { CurrencyId } from '../money/currency.js';
import type { Minor } from '../money/money.js';
import type { AdminTipTag, BetTerms, DepositTerms, WithdrawalTerms } from './wallet.events.js';

/**
 * A command may state its business time (ISO 8601: when the game server placed the bet, the provider confirmed);
 * without it the business time is the decision time. It is never part of an idempotency fingerprint.
 */
export type BusinessTime = Readonly<{ effectiveAt?: string }>;
type C<T extends string, D> = Readonly<{ type: T; data: Readonly<D & BusinessTime> }>;
type Admin = Readonly<{
  adminUserId: number;
  /** Idempotency key: a repeat with the same key has no second effect. */ operationKey: string;
}>;

/** `overLimit`: past the player's deposit limit, recorded because the money had already moved (completing it holds it). */
export type RequestDeposit = C<'RequestDeposit', { depositId: string; overLimit?: boolean } & DepositTerms<Minor>>;
export type ConfirmDeposit = C<'ConfirmDeposit', { depositId: string; txHash: string | null }>;
export type CompleteDeposit = C<'CompleteDeposit', { depositId: string; txHash: string | null }>;
export type FailDeposit = C<'FailDeposit', { depositId: string; reason: string }>;
/** An admin's decision on a deposit that completed held: the deposit id is its idempotency key, the reason is required. */
type HeldDepositDecision = Readonly<{ depositId: string; adminUserId: number; reason: string }>;
export type ReleaseDeposit = C<'ReleaseDeposit', HeldDepositDecision>;
export type ReturnDeposit = C<'ReturnDeposit', HeldDepositDecision>;

export type PlaceBet = C<'PlaceBet', { betId: string } & BetTerms<Minor>>;
export type SettleBet = C<'SettleBet', { betId: string; payout: Minor; usdPayout: Minor }>;
export type RollbackBet = C<'RollbackBet', { betId: string }>;
export type ErrorBet = C<'ErrorBet', { betId: string; errorDetails: string }>;

/** `heldForReview`: over the AML threshold by a player below the KYC level; not approvable until its flag is cleared. */
export type RequestWithdrawal = C<
  'RequestWithdrawal',
  { withdrawalId: string; operationKey: string; heldForReview?: boolean } & WithdrawalTerms<Minor>
>;
export type ApproveWithdrawal = C<'ApproveWithdrawal', { withdrawalId: string; adminUserId: number }>;
export type RejectWithdrawal = C<'RejectWithdrawal', { withdrawalId: string; adminUserId: number; rejectReason: string }>;
export type RetryWithdrawal = C<'RetryWithdrawal', { withdrawalId: string; adminUserId: number }>;
export type CompleteWithdrawal = C<'CompleteWithdrawal', { withdrawalId: string; txHash: string }>;
export type FailWithdrawal = C<'FailWithdrawal', { withdrawalId: string; failedReason: string }>;

export type TipUser = C<
  'TipUser',
  Admin & { tipId: number; currencyId: CurrencyId; amount: Minor; usdAmount: Minor; tag: AdminTipTag | null; notes: string }
>;
export type DeductBalance = C<
  'DeductBalance',
  Admin & { tipId: number; currencyId: CurrencyId; amount: Minor; usdAmount: Minor; tag: AdminTipTag | null; notes: string }
>;
export type SetBalance = C<'SetBalance', Admin & { currencyId: CurrencyId; balance: Minor }>;
export type CreditPrize = C<
  'CreditPrize',
  Admin & { leaderboardId: string; leaderboardUserId: string; currencyId: CurrencyId; amount: Minor; usdAmount: Minor }
>;

/** An affiliate's earned commission paid into the wallet (house:affiliate -> user); idempotent on claimId. */
export type ClaimAffiliateCommission = C<
  'ClaimAffiliateCommission',
  { claimId: string; operationKey: string; currencyId: CurrencyId; amount: Minor; usdAmount: Minor }
>;

export type WalletCommand =
  | RequestDeposit
  | ConfirmDeposit
  | CompleteDeposit
  | FailDeposit
  | ReleaseDeposit
  | ReturnDeposit
  | PlaceBet
  | SettleBet
  | RollbackBet
  | ErrorBet
  | RequestWithdrawal
  | ApproveWithdrawal
  | RejectWithdrawal
  | RetryWithdrawal
  | CompleteWithdrawal
  | FailWithdrawal
  | TipUser
  | DeductBalance
  | SetBalance
  | CreditPrize
  | ClaimAffiliateCommission;

/** What decide needs besides the command: whose wallet and the time. decide never reads a clock. */
export type CommandMetadata = Readonly<{ userId: number; now: Date }>;
