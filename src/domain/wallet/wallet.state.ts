import { Map as IMap } from 'immutable';
import type { CurrencyId } from '../money/currency.js';
import type { Minor } from '../money/money.js';
import type {
  BetStatus,
  BetTerms,
  DepositStatus,
  DepositTerms,
  HeldDepositSettlement,
  WithdrawalStatus,
  WithdrawalTerms,
} from './wallet.events.js';

export type DepositEntry = DepositTerms<Minor> &
  Readonly<{
    id: string;
    status: DepositStatus;
    /** Set when COMPLETE (the accounting transaction that credited the wallet). */
    transactionId: string | null;
    failedReason: string | null;
    createdAt: string;
    updatedAt: string;
    /** The business time its request counts at against deposit limits. */
    countedAt?: string;
    /** Requested past the player's deposit limit once the money had moved: completing it credits the held account. */
    overLimit?: boolean;
    /** Completed onto house:deposits-held (not the player's balance) until an admin releases or returns it. */
    held?: boolean;
    /** What the admin decided on a held deposit; absent while it is still held. */
    settlement?: HeldDepositSettlement;
  }>;

export type BetEntry = BetTerms<Minor> &
  Readonly<{
    id: string;
    status: BetStatus;
    payout: Minor;
    usdPayout: Minor;
    multiplier: string | null;
    errorDetails: string | null;
    /** The placement's accounting transaction id (originalId of a rollback). */
    transactionId: string;
    createdAt: string;
    updatedAt: string;
    settledAt: string | null;
  }>;

/** Where a withdrawal stands since its request; the ledger's WithdrawalView shows it as is. */
export type WithdrawalProgress = Readonly<{
  status: WithdrawalStatus;
  transactionId: string;
  txHash: string | null;
  rejectReason: string | null;
  failedReason: string | null;
  confirmedAt: string | null;
  confirmedByUserId: number | null;
  createdAt: string;
  updatedAt: string;
}>;

export type WithdrawalEntry = WithdrawalTerms<Minor> & WithdrawalProgress & Readonly<{ id: string }>;

/** What an idempotency key was used for, so a repeat can return the first result. */
export type OperationEntry = Readonly<{
  commandType: string;
  /** id of what it produced (tip id, withdrawal id, transaction id) */ ref: string;
  /** The main fields of the first command (see operationFingerprint): a repeat with other values is a conflict. */
  fingerprint: string;
}>;

/** Canonical text of an operation's main fields, built the same way by decide (from commands) and evolve (from events). */
export const operationFingerprint = (currencyId: CurrencyId, amount: Minor, ...extra: readonly string[]): string =>
  JSON.stringify([currencyId, amount.toString(), ...extra]);

/** An affiliate commission claim as first paid: a repeat of its claimId answers this. */
export type ClaimEntry = Readonly<{ currencyId: CurrencyId; amount: Minor; usdAmount: Minor; transactionId: string; balanceAfter: Minor }>;

/** USD minor units moved in one clock hour of business time (src/domain/wallet/wallet.tallies.ts). */
export type Tally = Readonly<{ stakes: Minor; payouts: Minor; deposits: Minor; withdrawals: Minor }>;
export type Tallies = IMap<number, Tally>;

/** The folded wallet stream of one user; persistent maps (immutable.js) keep evolve pure without copying whole maps. */
export type WalletState = Readonly<{
  userId: number;
  balances: IMap<CurrencyId, Minor>;
  deposits: IMap<string, DepositEntry>;
  /** `${providerId}:${externalId}` -> deposit id: the deposit's natural idempotency key. */
  depositsByExternalKey: IMap<string, string>;
  bets: IMap<string, BetEntry>;
  withdrawals: IMap<string, WithdrawalEntry>;
  operations: IMap<string, OperationEntry>;
  claims: IMap<string, ClaimEntry>;
  /** Stakes, payouts and deposits per clock hour (wallet.tallies.ts): what deposit and loss limits count. */
  tallies: Tallies;
}>;

export const depositExternalKey = (providerId: string, externalId: string): string => `${providerId}:${externalId}`;

export const initialWalletState = (userId: number): WalletState => ({
  userId,
  balances: IMap(),
  deposits: IMap(),
  depositsByExternalKey: IMap(),
  bets: IMap(),
  withdrawals: IMap(),
  operations: IMap(),
  claims: IMap(),
  tallies: IMap(),
});

export const balanceOf = (state: WalletState, currencyId: CurrencyId): Minor => state.balances.get(currencyId) ?? 0n;
