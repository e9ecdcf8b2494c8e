import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { scaleOf, USD_SCALE, type CurrencyId } from '../domain/money/currency.js';
import { isParseError, parseDecimal, toUsdMinor, type Minor } from '../domain/money/money.js';
import type { WalletCommand } from '../domain/wallet/wallet.commands.js';
import type { WalletState } from '../domain/wallet/wallet.state.js';
import { windowSums } from '../domain/wallet/wallet.tallies.js';
import type { EventStore } from '../infra/event-store/event-store.port.js';
import { boundedBusinessTime, DEFAULT_BUSINESS_TIME_BOUNDS, type BusinessTimeBounds } from './business-time.js';
import { createEntityKeys, type EntityKind } from './entity-keys.js';
import type { BalanceView, LedgerError, LedgerResult } from './ledger.types.js';
import { createRates, type Rates } from './rates.js';
import { balanceView } from './views.js';
import { createWalletHandler, type Handled, type WalletGuard, type WalletHandler } from './wallet.handler.js';

export type LedgerDeps = Readonly<{
  store: EventStore;
  pool: pg.Pool;
  /** Pool for ledger_keys claims; best with synchronous_commit off (see entity-keys.ts). Defaults to `pool`. */
  keysPool?: pg.Pool;
  clock?: () => Date;
  /** How far a caller's business time may lie from the recording time; DEFAULT_BUSINESS_TIME_BOUNDS when unset. */
  businessTimeBounds?: BusinessTimeBounds;
  rates?: Rates;
  /** Whether the user exists; unset, every positive user id has a wallet. */
  userExists?: (userId: number) => Promise<boolean>;
  /** Users without a username may not bet or withdraw (403 USERNAME_REQUIRED); everyone may when unset. */
  canTransact?: (userId: number) => Promise<boolean>;
  /** Ban, self-exclusion and bet limit (usdAmount in USD minor units); every bet passes when unset. */
  betGuard?: BetGuard;
  /** AML thresholds (src/compliance/aml.ts); unset: no flags are raised and no withdrawal is held for review. */
  aml?: AmlHooks;
  handler?: WalletHandler;
  walletCacheEntries?: number;
  /** Events between two snapshots of a wallet's kept state (default 100). */
  walletSnapshotEvery?: number;
  onSnapshotError?: (error: unknown) => void;
}>;

/** The bet guard; a store that checks in its append (PostgreSQL) calls it only when the wallet itself refused. */
export type BetGuard = ((
  userId: number,
  usdAmount: Minor | null,
  figures?: readonly (string | null)[],
) => Promise<LedgerError | undefined>) & {
  readonly inAppend?: boolean;
};

/** What the ledger asks of the AML flags (docs/compliance.md). */
export type AmlHooks = Readonly<{
  settings: Readonly<{ thresholdUsd: Minor; windowHours: number }>;
  /** Whether the player is below the KYC level a withdrawal over the threshold needs. */
  belowKyc: (userId: number) => Promise<boolean>;
  raise: (
    userId: number,
    kind: 'linked-transactions' | 'withdrawal-review',
    flagId: string,
    linkedUsd: Minor,
    withdrawalId: string | null,
  ) => Promise<void>;
  underReview: (withdrawalId: string) => Promise<boolean>;
}>;

/** An amount and its USD value in minor units, both checked. */
export type Money = Readonly<{ amount: Minor; usdAmount: Minor }>;

const invalid = (field: string, message: string): LedgerError => ({ _tag: 'InvalidAmount', field, message });

/** A decimal string at the currency's scale, in minor units; `positive` refuses zero too. */
export const amountOf = (currencyId: CurrencyId, value: string, field: string, positive = true): Either<LedgerError, Minor> => {
  const minor = parseDecimal(value, scaleOf(currencyId));
  if (isParseError(minor)) return left(invalid(field, `${minor.message} (${currencyId} has ${scaleOf(currencyId)} decimals)`));
  if (minor < 0n || (positive && minor === 0n))
    return left(invalid(field, positive ? 'must be greater than zero' : 'must not be negative'));
  return right(minor);
};

/**
 * What every wallet flow's use case is built on: the wallet handler (read, decide, group-committed append), the
 * owners of keyed ids, rates, the clock, and the checks every money command makes in the same order.
 */
export const createWalletKit = (deps: LedgerDeps) => {
  const keys = createEntityKeys({ pool: deps.keysPool ?? deps.pool });
  const handler =
    deps.handler ??
    createWalletHandler({
      store: deps.store,
      ...(deps.clock ? { clock: deps.clock } : {}),
      ...(deps.walletCacheEntries ? { cacheEntries: deps.walletCacheEntries } : {}),
      ...(deps.walletSnapshotEvery ? { snapshotEvery: deps.walletSnapshotEvery } : {}),
      ...(deps.onSnapshotError ? { onSnapshotError: deps.onSnapshotError } : {}),
      // A store that cannot claim in its append (KurrentDB): claimed in ledger_keys once the command is accepted.
      // A fresh claim whose key was already its owner's comes back too: the handler looks the item up.
      claimKeys: async (claims) => {
        const claimed = await Promise.all(claims.map((c) => keys.claim(c.kind as EntityKind, c.key, c.owner)));
        return claims.flatMap((c, i) => {
          const { owner, made } = claimed[i]!;
          return owner === c.owner && (made || c.fresh !== true) ? [] : [{ kind: c.kind, key: c.key, owner }];
        });
      },
      onClaimed: (claims) => claims.forEach((c) => keys.remember(c.kind as EntityKind, c.key, c.owner)),
    });
  const rates = deps.rates ?? createRates({ pool: deps.pool });
  const now = deps.clock ?? (() => new Date());
  const userExists = deps.userExists ?? (async (id: number) => Number.isSafeInteger(id) && id > 0);
  const canTransact = deps.canTransact ?? (async () => true);
  const businessTimeBounds = deps.businessTimeBounds ?? DEFAULT_BUSINESS_TIME_BOUNDS;

  /** A user who may stake or withdraw: exists, and has a username. */
  const mayTransact = async (userId: number): Promise<LedgerError | undefined> => {
    if (!(await userExists(userId))) return { _tag: 'UserNotFound', userId };
    return (await canTransact(userId)) ? undefined : { _tag: 'UsernameRequired', userId };
  };

  /** A USD value: the caller's for `field`, checked, or the amount's at the current rate. */
  const usdOf = async (
    currencyId: CurrencyId,
    amount: Minor,
    given: string | undefined,
    field: string,
  ): Promise<Either<LedgerError, Minor>> => {
    if (given === undefined) return right(toUsdMinor(currencyId, amount, await rates.usdRate(currencyId)));
    const usd = parseDecimal(given, USD_SCALE);
    if (isParseError(usd)) return left(invalid(field, usd.message));
    if (usd < 0n) return left(invalid(field, 'must not be negative'));
    return right(usd);
  };

  /** The amount at the currency's scale, then its USD value (the caller's, checked, or at the current rate). */
  const money = async (currencyId: CurrencyId, amount: string, givenUsd: string | undefined): Promise<Either<LedgerError, Money>> => {
    const minor = amountOf(currencyId, amount, 'amount');
    if (isLeft(minor)) return minor;
    const usd = await usdOf(currencyId, minor.right, givenUsd, 'usdAmount');
    return isLeft(usd) ? usd : right({ amount: minor.right, usdAmount: usd.right });
  };

  /**
   * One command on one wallet: the wallet's answer, viewed, or its refusal; keys claimed and guards run in the append.
   * A business time the command states is checked against the bounds first and written in UTC.
   */
  const run = async <T>(
    userId: number,
    command: WalletCommand,
    view: (state: WalletState, appended: boolean) => T,
    actor?: Record<string, unknown>,
    claims: readonly (readonly [EntityKind, string])[] = [],
    guards: readonly WalletGuard[] = [],
  ): LedgerResult<T> => {
    const stated = command.data.effectiveAt;
    const bounded = stated === undefined ? undefined : boundedBusinessTime(stated, now(), businessTimeBounds);
    if (bounded && '_tag' in bounded) return left(bounded);
    if (!(await userExists(userId))) return left({ _tag: 'UserNotFound', userId });
    const decided = bounded ? ({ ...command, data: { ...command.data, ...bounded } } as WalletCommand) : command;
    const handled: Handled = await handler.handle(userId, decided, actor, {
      claims: claims.map(([kind, key]) => ({ kind, key, owner: userId })),
      guards,
    });
    return isLeft(handled.decision) ? handled.decision : right(view(handled.state, handled.decision.right.length > 0));
  };

  /** The wallet that owns a keyed id (a bet, deposit or withdrawal), or `notFound`. */
  const owner = async (kind: EntityKind, id: string, notFound: LedgerError): Promise<Either<LedgerError, number>> => {
    const userId = await keys.ownerOf(kind, id);
    return userId === undefined ? left(notFound) : right(userId);
  };

  /** An admin's command on one currency of a wallet, answered with that currency's balance. */
  const adminBalanceCommand = (
    input: Readonly<{ userId: number; currencyId: CurrencyId; adminUserId: number }>,
    command: WalletCommand,
  ): LedgerResult<BalanceView> =>
    run(input.userId, command, (s) => balanceView(input.userId, input.currencyId, s), { adminUserId: input.adminUserId });

  /**
   * After a deposit or withdrawal request: the player's linked deposits and withdrawals over the AML window (with this
   * one) reaching the threshold raise a due-diligence flag (one open at a time).
   */
  const linkedCheck = async (userId: number, state: WalletState, businessTime: string, triggerId: string): Promise<void> => {
    const aml = deps.aml;
    if (!aml) return;
    const sums = windowSums(state, businessTime, aml.settings.windowHours);
    const linked = sums.deposits + sums.withdrawals;
    if (linked >= aml.settings.thresholdUsd) await aml.raise(userId, 'linked-transactions', `linked-${triggerId}`, linked, null);
  };

  return { deps, keys, handler, rates, now, mayTransact, money, usdOf, run, owner, adminBalanceCommand, linkedCheck };
};

export type WalletKit = ReturnType<typeof createWalletKit>;
