import type { CurrencyId } from '../money/currency.js';
import { fromMinor, toMinor, type DecimalString, type Minor } from '../money/money.js';

/** House accounts: the other side of every user balance change. */
export const HOUSE_ACCOUNTS = [
  'house:deposits',
  /** Deposits that arrived past the player's deposit limit: the player's, not playable (docs/compliance.md). */
  'house:deposits-held',
  /** Held deposits an admin returned: the money goes back to its payer outside the ledger (docs/compliance.md). */
  'house:deposits-returned',
  'house:bets',
  'house:payouts',
  'house:withdrawals',
  'house:withdrawals-held',
  'house:admin-tips',
  'house:adjustments',
  'house:prizes',
  'house:affiliate',
] as const;
export type HouseAccount = (typeof HOUSE_ACCOUNTS)[number];
/** A user's wallet account for all currencies: `user:<id>`. */
export type UserAccount = `user:${number}`;
export type Account = HouseAccount | UserAccount;

export const userAccount = (userId: number): UserAccount => `user:${userId}`;

/** One leg of a double-entry movement: `amount` added to `account` in `currencyId`; an event's legs sum to zero per currency. */
export type Posting = Readonly<{ account: Account; currencyId: CurrencyId; amount: DecimalString }>;

/** Moves `amount` (> 0) from one account to another: two legs that cancel out. */
export const transfer = (from: Account, to: Account, currencyId: CurrencyId, amount: Minor): readonly Posting[] => [
  { account: from, currencyId, amount: fromMinor(currencyId, -amount) },
  { account: to, currencyId, amount: fromMinor(currencyId, amount) },
];

export const sumPostings = (postings: readonly Posting[]): Map<CurrencyId, Minor> => {
  const sums = new Map<CurrencyId, Minor>();
  for (const p of postings) sums.set(p.currencyId, (sums.get(p.currencyId) ?? 0n) + toMinor(p.currencyId, p.amount));
  return sums;
};

export const isBalanced = (postings: readonly Posting[]): boolean => [...sumPostings(postings).values()].every((s) => s === 0n);
