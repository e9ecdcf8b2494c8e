import type { CurrencyId } from '../domain/money/currency.js';
import { fromMinor, usdFromMinor } from '../domain/money/money.js';
import type { BetEntry, DepositEntry, WalletState, WithdrawalEntry } from '../domain/wallet/wallet.state.js';
import type { BalanceView, BetView, DepositHold, DepositView, HeldDepositView, WithdrawalView } from './ledger.types.js';

export const depositView = (userId: number, d: DepositEntry): DepositView => ({
  id: d.id,
  userId,
  externalId: d.externalId,
  providerId: d.providerId,
  networkId: d.networkId,
  currencyId: d.currencyId,
  amount: fromMinor(d.currencyId, d.amount),
  usdAmount: usdFromMinor(d.usdAmount),
  status: d.status,
  txHash: d.txHash,
  payAddress: d.payAddress,
  payMemo: d.payMemo,
  transactionId: d.transactionId,
  affiliateAmount: null,
  depositBonus: null,
  affiliateCodeId: null,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

/** HELD, RELEASED or RETURNED for a deposit that completed past the deposit limit; null for any other. */
export const depositHold = (d: DepositEntry): DepositHold | null => d.settlement ?? (d.held === true ? 'HELD' : null);
export const heldDepositView = (userId: number, d: DepositEntry): HeldDepositView => ({ ...depositView(userId, d), hold: depositHold(d) });

export const betView = (userId: number, b: BetEntry): BetView => ({
  id: b.id,
  userId,
  roundId: b.roundId,
  gameId: b.gameId,
  gameIdentity: b.gameIdentity,
  currencyId: b.currencyId,
  amount: fromMinor(b.currencyId, b.amount),
  usdAmount: usdFromMinor(b.usdAmount),
  payout: fromMinor(b.currencyId, b.payout),
  usdPayout: usdFromMinor(b.usdPayout),
  status: b.status,
  // The API shows the multiplier as a JSON number (display only; the ledger keeps the exact decimal);
  // 0 until the bet is SETTLED, as the lists answer it (its payout is 0 until then, docs/decisions.md).
  multiplier: b.multiplier === null ? 0 : Number(b.multiplier),
  errorDetails: b.errorDetails,
  createdAt: b.createdAt,
  updatedAt: b.updatedAt,
  settledAt: b.settledAt,
});

export const withdrawalView = (userId: number, w: WithdrawalEntry): WithdrawalView => ({
  id: w.id,
  userId,
  currencyId: w.currencyId,
  networkId: w.networkId,
  providerId: w.providerId,
  amount: fromMinor(w.currencyId, w.amount),
  usdAmount: usdFromMinor(w.usdAmount),
  status: w.status,
  recipientAddress: w.recipientAddress,
  recipientMemo: w.recipientMemo,
  transactionId: w.transactionId,
  txHash: w.txHash,
  rejectReason: w.rejectReason,
  failedReason: w.failedReason,
  confirmedAt: w.confirmedAt,
  confirmedByUserId: w.confirmedByUserId,
  confirmations: w.status === 'COMPLETE' ? 1 : 0,
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});

/** One currency's balance; zero when the wallet never held it. */
export const balanceView = (userId: number, currencyId: CurrencyId, state: WalletState): BalanceView => ({
  userId,
  currencyId,
  balance: fromMinor(currencyId, state.balances.get(currencyId) ?? 0n),
});

export const balanceViews = (state: WalletState): BalanceView[] =>
  [...state.balances.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currencyId, minor]) => ({ userId: state.userId, currencyId, balance: fromMinor(currencyId, minor) }));
