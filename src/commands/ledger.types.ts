import type { Either } from 'fp-ts/lib/Either.js';
import type { CurrencyId } from '../domain/money/currency.js';
import type { DecimalString } from '../domain/money/money.js';
import type { WalletError } from '../domain/wallet/wallet.errors.js';
import type {
  AdminTipTag,
  BetStatus,
  BetTerms,
  DepositStatus,
  DepositTerms,
  GameIdentity,
  WithdrawalTerms,
} from '../domain/wallet/wallet.events.js';
import type { WithdrawalProgress } from '../domain/wallet/wallet.state.js';

export type DepositView = DepositTerms<DecimalString> &
  Readonly<{
    id: string;
    userId: number;
    status: DepositStatus;
    transactionId: string | null;
    affiliateAmount: null;
    depositBonus: null;
    affiliateCodeId: null;
    createdAt: string;
    updatedAt: string;
  }>;

/** Where a deposit that completed past the deposit limit stands: HELD until an admin releases or returns it. */
export type DepositHold = 'HELD' | 'RELEASED' | 'RETURNED';
/** A deposit as the back office's decision on it answers: the deposit and its hold. */
export type HeldDepositView = DepositView & Readonly<{ hold: DepositHold | null }>;
/** An admin's decision on a held deposit: who decided and why (required). */
export type HeldDepositDecisionInput = Readonly<{ adminUserId: number; reason: string }>;

export type BetView = BetTerms<DecimalString> &
  Readonly<{
    id: string;
    userId: number;
    payout: DecimalString;
    usdPayout: DecimalString;
    status: BetStatus;
    /** 0 until SETTLED. */
    multiplier: number;
    errorDetails: string | null;
    createdAt: string;
    updatedAt: string;
    settledAt: string | null;
  }>;

export type WithdrawalView = WithdrawalTerms<DecimalString> &
  WithdrawalProgress &
  Readonly<{ id: string; userId: number; confirmations: number }>;

export type TipView = Readonly<{
  id: number;
  recipientUserId: number;
  currencyId: CurrencyId;
  amount: DecimalString;
  type: 'ADD_BALANCE' | 'DEDUCT_BALANCE';
}>;
export type BalanceView = Readonly<{ userId: number; currencyId: CurrencyId; balance: DecimalString }>;

export type LedgerError =
  | WalletError
  | Readonly<{ _tag: 'UserNotFound'; userId: number }>
  /** Identity-provider users must set a username before they bet or withdraw. */
  | Readonly<{ _tag: 'UsernameRequired'; userId: number }>
  | Readonly<{ _tag: 'UserSelfExcluded'; userId: number; expiresAt: string }>
  | Readonly<{ _tag: 'BetLimitExceeded'; userId: number; betLimit: string }>
  | Readonly<{ _tag: 'UserBanned'; userId: number }>
  /** The bet would bring the player's net loss over `window` past their loss limit (USD) in force. */
  | Readonly<{ _tag: 'LossLimitExceeded'; userId: number; window: string; limit: string }>
  /** An AML flag holds the withdrawal for review: it can be approved once the flag is cleared. */
  | Readonly<{ _tag: 'WithdrawalUnderReview'; withdrawalId: string }>
  /** The deposit request would bring the player's deposits over `window` past their deposit limit (USD) in force. */
  | Readonly<{ _tag: 'DepositLimitExceeded'; userId: number; window: string; limit: string }>
  /** A caller's business time outside the configured bounds around the recording time. */
  | Readonly<{ _tag: 'InvalidBusinessTime'; field: string; message: string }>;

export type LedgerResult<T> = Promise<Either<LedgerError, T>>;

/**
 * The business time a caller (game server, payment provider, affiliate service) may state, ISO 8601 with zone;
 * bounded around the recording time by the wallet kit. Back-office actions never state one.
 */
export type BusinessTimeInput = Readonly<{ effectiveAt?: string | undefined }>;

/** Amounts arrive as decimal strings already shape-checked by the route's zod schema; the ledger checks the currency's scale. */
export type DepositInput = BusinessTimeInput &
  Readonly<{
    externalId: string;
    userId: number;
    providerId: string;
    networkId: string;
    currencyId: CurrencyId;
    amount: string;
    usdAmount?: string | undefined;
    txHash?: string | null | undefined;
    payAddress?: string | null | undefined;
    payMemo?: string | null | undefined;
  }>;
export type BetInput = BusinessTimeInput &
  Readonly<{
    id: string;
    userId: number;
    roundId: string;
    gameId: number;
    gameIdentity: GameIdentity;
    currencyId: CurrencyId;
    amount: string;
    usdAmount?: string | undefined;
  }>;
export type WithdrawalInput = Readonly<{
  userId: number;
  currencyId: CurrencyId;
  networkId: string;
  providerId: string;
  amount: string;
  usdAmount?: string | undefined;
  recipientAddress: string;
  recipientMemo?: string | null | undefined;
  /** Idempotency-Key header; a fresh key is generated when absent. */
  operationKey?: string | undefined;
}>;
export type AdminTipInput = Readonly<{
  recipientUserId: number;
  adminUserId: number;
  currencyId: CurrencyId;
  amount: string;
  tag?: AdminTipTag | null | undefined;
  notes: string;
  operationKey?: string | undefined;
}>;

export type AffiliateClaimInput = BusinessTimeInput &
  Readonly<{
    claimId: string;
    userId: number;
    currencyId: CurrencyId;
    amount: string;
    usdAmount?: string | undefined;
  }>;
export type AffiliateClaimView = Readonly<{
  claimId: string;
  userId: number;
  currencyId: CurrencyId;
  amount: DecimalString;
  usdAmount: DecimalString;
  transactionId: string;
  balance: DecimalString;
}>;

export interface Ledger {
  /** `created` is false on a repeat of the same providerId + externalId (the first deposit is returned). */
  requestDeposit(input: DepositInput): LedgerResult<{ deposit: DepositView; created: boolean }>;
  confirmDeposit(depositId: string, input: { txHash?: string | null | undefined } & BusinessTimeInput): LedgerResult<DepositView>;
  completeDeposit(depositId: string, input: { txHash?: string | null | undefined } & BusinessTimeInput): LedgerResult<DepositView>;
  failDeposit(depositId: string, input: { reason: string } & BusinessTimeInput): LedgerResult<DepositView>;
  /** A held deposit to the player's balance (not checked against the deposit limit again); a repeat answers the first. */
  releaseDeposit(depositId: string, input: HeldDepositDecisionInput): LedgerResult<HeldDepositView>;
  /** A held deposit back to its payer (house:deposits-returned); a repeat answers the first. */
  returnDeposit(depositId: string, input: HeldDepositDecisionInput): LedgerResult<HeldDepositView>;

  placeBet(input: BetInput): LedgerResult<{ bet: BetView; created: boolean }>;
  settleBet(betId: string, input: { payout: string; usdPayout?: string | undefined } & BusinessTimeInput): LedgerResult<BetView>;
  rollbackBet(betId: string, input?: BusinessTimeInput): LedgerResult<BetView>;
  errorBet(betId: string, input: { errorDetails: string } & BusinessTimeInput): LedgerResult<BetView>;

  requestWithdrawal(input: WithdrawalInput): LedgerResult<{ withdrawal: WithdrawalView; created: boolean }>;
  approveWithdrawal(withdrawalId: string, adminUserId: number): LedgerResult<WithdrawalView>;
  rejectWithdrawal(withdrawalId: string, adminUserId: number, rejectReason: string): LedgerResult<WithdrawalView>;
  retryWithdrawal(withdrawalId: string, adminUserId: number): LedgerResult<WithdrawalView>;
  completeWithdrawal(withdrawalId: string, input: { txHash: string } & BusinessTimeInput): LedgerResult<WithdrawalView>;
  failWithdrawal(withdrawalId: string, input: { failedReason: string } & BusinessTimeInput): LedgerResult<WithdrawalView>;

  tip(input: AdminTipInput): LedgerResult<TipView>;
  deductBalance(input: AdminTipInput): LedgerResult<TipView>;
  setBalance(input: {
    userId: number;
    adminUserId: number;
    currencyId: CurrencyId;
    balance: string;
    operationKey?: string | undefined;
  }): LedgerResult<BalanceView>;
  creditPrize(input: {
    userId: number;
    adminUserId: number;
    leaderboardId: string;
    leaderboardUserId: string;
    currencyId: CurrencyId;
    amount: string;
    usdAmount?: string | undefined;
    operationKey?: string | undefined;
  }): LedgerResult<BalanceView>;

  /** Idempotent on `claimId`: a repeat returns the first claim, `created` false; another user or amount is a conflict. */
  claimAffiliateCommission(input: AffiliateClaimInput): LedgerResult<{ claim: AffiliateClaimView; created: boolean }>;

  /** Balances straight from the wallet stream (not a read model). */
  balances(userId: number): Promise<BalanceView[]>;
}
