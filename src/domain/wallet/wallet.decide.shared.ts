import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { transfer, userAccount, type HouseAccount, type Posting, type UserAccount } from '../ledger/posting.js';
import type { CurrencyId } from '../money/currency.js';
import { fromMinor, toMinor, usdFromMinor, type Minor } from '../money/money.js';
import type { WalletError } from './wallet.errors.js';
import type { EventTimes, WalletEvent } from './wallet.events.js';
import { balanceOf, type WalletState } from './wallet.state.js';

export type Decision = Either<WalletError, readonly WalletEvent[]>;

/** `times`: what every event of the decision records, the decision time and the business time. */
export type DecideContext = Readonly<{ state: WalletState; user: UserAccount; times: Required<EventTimes> }>;

/** The business time is the command's own when it states one (the edge bounds it), else the decision time. */
export const makeContext = (state: WalletState, userId: number, now: Date, effectiveAt?: string): DecideContext => {
  if (state.userId !== userId) throw new Error(`invariant: command for user ${userId} decided on wallet of user ${state.userId}`);
  const at = now.toISOString();
  return { state, user: userAccount(userId), times: { at, effectiveAt: effectiveAt ?? at } };
};

export const accept = (...events: readonly WalletEvent[]): Decision => right(events);
export const reject = (error: WalletError): Decision => left(error);
export const alreadyDone: Decision = right([]);

export const mustBePositive = (field: string, amount: Minor): WalletError | undefined =>
  amount > 0n ? undefined : { _tag: 'InvalidAmount', field, message: `${field} must be greater than zero` };
export const mustNotBeNegative = (field: string, amount: Minor): WalletError | undefined =>
  amount >= 0n ? undefined : { _tag: 'InvalidAmount', field, message: `${field} must not be negative` };

/** The amount a money command moves must be above zero, its USD value not below. */
export const mustBeValidAmounts = (data: Readonly<{ amount: Minor; usdAmount: Minor }>): WalletError | undefined =>
  mustBePositive('amount', data.amount) ?? mustNotBeNegative('usdAmount', data.usdAmount);

/** An amount and its USD value as events record them. */
export const amountsOf = (m: Readonly<{ currencyId: CurrencyId; amount: Minor; usdAmount: Minor }>) => ({
  amount: fromMinor(m.currencyId, m.amount),
  usdAmount: usdFromMinor(m.usdAmount),
});

/** Refuses a debit that would take the balance below zero. */
const mustCover = (state: WalletState, currencyId: CurrencyId, required: Minor): WalletError | undefined => {
  const balance = balanceOf(state, currencyId);
  return balance >= required
    ? undefined
    : { _tag: 'InsufficientFunds', currencyId, balance: fromMinor(currencyId, balance), required: fromMinor(currencyId, required) };
};

/** The legs moving `amount` from the user to `to`, or the refusal when the balance does not cover it. */
export const debitUser = (
  ctx: DecideContext,
  to: HouseAccount,
  currencyId: CurrencyId,
  amount: Minor,
): Either<WalletError, readonly Posting[]> => {
  const short = mustCover(ctx.state, currencyId, amount);
  return short ? left(short) : right(transfer(ctx.user, to, currencyId, amount));
};

/** The accounting fields of a money event; balanceAfter applies the user's own legs exactly as evolve will. */
export const movement = (ctx: DecideContext, currencyId: CurrencyId, transactionId: string, postings: readonly Posting[]) => {
  const delta = postings
    .filter((p) => p.account === ctx.user && p.currencyId === currencyId)
    .reduce((sum, p) => sum + toMinor(currencyId, p.amount), 0n);
  return { transactionId, currencyId, postings, balanceAfter: fromMinor(currencyId, balanceOf(ctx.state, currencyId) + delta) };
};

/** The event that debits the command's amount to `to`, built on its accounting fields; refused when the balance does not cover it. */
export const acceptDebit = (
  ctx: DecideContext,
  to: HouseAccount,
  data: Readonly<{ currencyId: CurrencyId; amount: Minor }>,
  transactionId: string,
  eventOf: (accounting: ReturnType<typeof movement>) => WalletEvent,
): Decision => {
  const postings = debitUser(ctx, to, data.currencyId, data.amount);
  return isLeft(postings) ? postings : accept(eventOf(movement(ctx, data.currencyId, transactionId, postings.right)));
};

/** An idempotency key: 'new' when unused, 'repeat' for the same command type and main fields, otherwise a conflict. */
export const checkOperationKey = (
  state: WalletState,
  operationKey: string,
  commandType: string,
  fingerprint: string,
): 'new' | 'repeat' | WalletError => {
  const seen = state.operations.get(operationKey);
  if (!seen) return 'new';
  if (seen.commandType === commandType && seen.fingerprint === fingerprint) return 'repeat';
  return {
    _tag: 'IdempotencyConflict',
    key: operationKey,
    message:
      seen.commandType === commandType
        ? `idempotency key "${operationKey}" was already used for a ${commandType} with different values`
        : `idempotency key "${operationKey}" was already used for ${seen.commandType}`,
  };
};

/** Validation, then the idempotency key: undefined means "go ahead", otherwise the decision to return as is. */
export const precheck = (
  ctx: DecideContext,
  commandType: string,
  operationKey: string,
  fingerprint: string,
  invalid: WalletError | undefined,
): Decision | undefined => {
  if (invalid) return reject(invalid);
  const seen = checkOperationKey(ctx.state, operationKey, commandType, fingerprint);
  if (seen === 'repeat') return alreadyDone;
  if (seen !== 'new') return reject(seen);
  return undefined;
};

/** A command again for what already exists: a no-op when its values are the same, otherwise a conflict. */
export const repeatOrConflict = (same: boolean, key: string, message: string): Decision =>
  same ? alreadyDone : reject({ _tag: 'IdempotencyConflict', key, message });
