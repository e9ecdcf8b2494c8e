import type { CurrencyId } from '../money/currency.js';
import type { Minor } from '../money/money.js';
import type { AdminTipTag, GameIdentity } from './wallet.events.js';

type C<T extends string, D> = Readonly<{ type: T; data: Readonly<D> }>;
type Admin = Readonly<{
  adminUserId: number;
  /** Idempotency key: a repeat with the same key has no second effect. */ operationKey: string;
}>;

/** What a deposit request states; the wallet's DepositEntry keeps it as sent. */
export type DepositTerms = Readonly<{
  externalId: string;
  providerId: string;
  networkId: string;
  currencyId: CurrencyId;
  amount: Minor;
  usdAmount: Minor;
  txHash: string | null;
  payAddress: string | null;
  payMemo: string | null;
}>;
export type RequestDeposit = C<'RequestDeposit', { depositId: string } & DepositTerms>;
export type ConfirmDeposit = C<'ConfirmDeposit', { depositId: string; txHash: string | null }>;
export type CompleteDeposit = C<'CompleteDeposit', { depositId: string; txHash: string | null }>;
export type FailDeposit = C<'FailDeposit', { depositId: string; reason: string }>;

/** What a bet placement states; the wallet's BetEntry keeps it as sent. */
export type BetTerms = Readonly<{
  roundId: string;
  gameId: number;
  gameIdentity: GameIdentity;
  currencyId: CurrencyId;
  amount: Minor;
  usdAmount: Minor;
}>;
export type PlaceBet = C<'PlaceBet', { betId: string } & BetTerms>;
export type SettleBet = C<'SettleBet', { betId: string; payout: Minor; usdPayout: Minor }>;
export type RollbackBet = C<'RollbackBet', { betId: string }>;
export type ErrorBet = C<'ErrorBet', { betId: string; errorDetails: string }>;

/** What a withdrawal request states; the wallet's WithdrawalEntry keeps it as sent. */
export type WithdrawalTerms = Readonly<{
  currencyId: CurrencyId;
  networkId: string;
  providerId: string;
  amount: Minor;
  usdAmount: Minor;
  recipientAddress: string;
  recipientMemo: string | null;
}>;
export type RequestWithdrawal = C<'RequestWithdrawal', { withdrawalId: string; operationKey: string } & WithdrawalTerms>;
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
