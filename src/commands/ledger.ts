import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { newId } from '../shared/ids.js';
import { scaleOf, USD_SCALE, type CurrencyId } from '../domain/money/currency.js';
import { fromMinor, isParseError, parseDecimal, toUsdMinor, usdFromMinor, type Minor } from '../domain/money/money.js';
import type { WalletCommand } from '../domain/wallet/wallet.commands.js';
import { depositExternalKey, type WalletState } from '../domain/wallet/wallet.state.js';
import { GuardRefused, type BetGuardCheck, type EventStore } from '../infra/event-store/event-store.port.js';
import { BET_GUARD, betGuardRefusal } from './bet-guard.js';
import { createEntityKeys, type EntityKeys, type EntityKind } from './entity-keys.js';
import type { BalanceView, Ledger, LedgerError, LedgerResult } from './ledger.types.js';
import { createRates, type Rates } from './rates.js';
import { balanceView, balanceViews, betView, depositView, withdrawalView } from './views.js';
import { createWalletHandler, type Handled, type WalletHandler } from './wallet.handler.js';

export type LedgerDeps = Readonly<{
  store: EventStore;
  pool: pg.Pool;
  /** Pool for ledger_keys claims; best with synchronous_commit off (see entity-keys.ts). Defaults to `pool`. */
  keysPool?: pg.Pool;
  clock?: () => Date;
  rates?: Rates;
  /** Whether the user exists; unset, every positive user id has a wallet. */
  userExists?: (userId: number) => Promise<boolean>;
  /** Users without a username may not bet or withdraw (403 USERNAME_REQUIRED); everyone may when unset. */
  canTransact?: (userId: number) => Promise<boolean>;
  /** Ban, self-exclusion and bet limit (usdAmount in USD minor units); every bet passes when unset. */
  betGuard?: BetGuard;
  handler?: WalletHandler;
  walletCacheEntries?: number;
}>;

/** The bet guard; a store that checks in its append (PostgreSQL) calls it only to name a refusal. */
export type BetGuard = ((userId: number, usdAmount: Minor) => Promise<LedgerError | undefined>) & { readonly inAppend?: boolean };

export type LedgerInternals = Readonly<{ handler: WalletHandler; keys: EntityKeys; rates: Rates }>;

const invalid = (field: string, message: string): LedgerError => ({ _tag: 'InvalidAmount', field, message });

/** A decimal string at the currency's scale, in minor units; `positive` refuses zero too. */
const amountOf = (currencyId: CurrencyId, value: string, field: string, positive = true): Either<LedgerError, Minor> => {
  const minor = parseDecimal(value, scaleOf(currencyId));
  if (isParseError(minor)) return left(invalid(field, `${minor.message} (${currencyId} has ${scaleOf(currencyId)} decimals)`));
  if (minor < 0n || (positive && minor === 0n))
    return left(invalid(field, positive ? 'must be greater than zero' : 'must not be negative'));
  return right(minor);
};

export const createLedger = (deps: LedgerDeps): Ledger & { internals: LedgerInternals } => {
  const keys = createEntityKeys({ pool: deps.keysPool ?? deps.pool });
  const handler =
    deps.handler ??
    createWalletHandler({
      store: deps.store,
      ...(deps.clock ? { clock: deps.clock } : {}),
      ...(deps.walletCacheEntries ? { cacheEntries: deps.walletCacheEntries } : {}),
      // A store that cannot claim in its append (KurrentDB): claimed in ledger_keys once the command is accepted.
      claimKeys: async (claims) => {
        const owners = await Promise.all(claims.map((c) => keys.claim(c.kind as EntityKind, c.key, c.owner)));
        return claims.flatMap((c, i) => (owners[i] === c.owner ? [] : [{ ...c, owner: owners[i]! }]));
      },
      onClaimed: (claims) => claims.forEach((c) => keys.remember(c.kind as EntityKind, c.key, c.owner)),
    });
  const rates = deps.rates ?? createRates({ pool: deps.pool });
  const now = deps.clock ?? (() => new Date());
  const userExists = deps.userExists ?? (async (id: number) => Number.isSafeInteger(id) && id > 0);
  const canTransact = deps.canTransact ?? (async () => true);
  const mayTransact = async (userId: number): Promise<LedgerError | undefined> => {
    if (!(await userExists(userId))) return { _tag: 'UserNotFound', userId };
    return (await canTransact(userId)) ? undefined : { _tag: 'UsernameRequired', userId };
  };
  const tipIds = async (): Promise<number> =>
    Number((await deps.pool.query<{ id: string }>(`SELECT nextval('admin_tip_id_seq') AS id`)).rows[0]!.id);

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

  const run = async <T>(
    userId: number,
    command: WalletCommand,
    view: (state: WalletState, appended: boolean) => T,
    actor?: Record<string, unknown>,
    claims: readonly (readonly [EntityKind, string])[] = [],
    guards: readonly BetGuardCheck[] = [],
  ): LedgerResult<T> => {
    if (!(await userExists(userId))) return left({ _tag: 'UserNotFound', userId });
    const handled: Handled = await handler.handle(userId, command, actor, {
      claims: claims.map(([kind, key]) => ({ kind, key, owner: userId })),
      guards,
    });
    return isLeft(handled.decision) ? handled.decision : right(view(handled.state, handled.decision.right.length > 0));
  };

  /** An admin's command on one currency of a wallet, answered with that currency's balance. */
  const adminBalanceCommand = (
    input: Readonly<{ userId: number; currencyId: CurrencyId; adminUserId: number }>,
    command: WalletCommand,
  ): LedgerResult<BalanceView> =>
    run(input.userId, command, (s) => balanceView(input.userId, input.currencyId, s), { adminUserId: input.adminUserId });

  const owner = async (kind: EntityKind, id: string, notFound: LedgerError): Promise<Either<LedgerError, number>> => {
    const userId = await keys.ownerOf(kind, id);
    return userId === undefined ? left(notFound) : right(userId);
  };

  const depositTransition = async (
    depositId: string,
    make: (depositId: string) => WalletCommand,
  ): LedgerResult<ReturnType<typeof depositView>> => {
    const userId = await owner('deposit', depositId, { _tag: 'DepositNotFound', depositId });
    if (isLeft(userId)) return userId;
    return run(userId.right, make(depositId), (s) => depositView(userId.right, s.deposits.get(depositId)!));
  };

  const betTransition = async (
    betId: string,
    make: (currencyId: CurrencyId) => Promise<Either<LedgerError, WalletCommand>>,
  ): LedgerResult<ReturnType<typeof betView>> => {
    const userId = await owner('bet', betId, { _tag: 'BetNotFound', betId });
    if (isLeft(userId)) return userId;
    // A bet's currency never changes: a cached wallet that knows the bet is enough.
    const bet = handler.peek(userId.right)?.bets.get(betId) ?? (await handler.load(userId.right)).bets.get(betId);
    if (!bet) return left({ _tag: 'BetNotFound', betId });
    const command = await make(bet.currencyId);
    if (isLeft(command)) return command;
    return run(userId.right, command.right, (s) => betView(userId.right, s.bets.get(betId)!));
  };

  const withdrawalTransition = async (
    withdrawalId: string,
    command: WalletCommand,
    adminUserId?: number,
  ): LedgerResult<ReturnType<typeof withdrawalView>> => {
    const userId = await owner('withdrawal', withdrawalId, { _tag: 'WithdrawalNotFound', withdrawalId });
    if (isLeft(userId)) return userId;
    return run(
      userId.right,
      command,
      (s) => withdrawalView(userId.right, s.withdrawals.get(withdrawalId)!),
      adminUserId === undefined ? undefined : { adminUserId },
    );
  };

  const ledger: Ledger = {
    requestDeposit: async (input) => {
      const amount = amountOf(input.currencyId, input.amount, 'amount');
      if (isLeft(amount)) return amount;
      const usdAmount = await usdOf(input.currencyId, amount.right, input.usdAmount, 'usdAmount');
      if (isLeft(usdAmount)) return usdAmount;
      const externalKey = depositExternalKey(input.providerId, input.externalId);
      const depositId = newId();
      return run(
        input.userId,
        {
          type: 'RequestDeposit',
          data: {
            depositId,
            externalId: input.externalId,
            providerId: input.providerId,
            networkId: input.networkId,
            currencyId: input.currencyId,
            amount: amount.right,
            usdAmount: usdAmount.right,
            txHash: input.txHash ?? null,
            payAddress: input.payAddress ?? null,
            payMemo: input.payMemo ?? null,
          },
        },
        (s) => {
          const id = s.depositsByExternalKey.get(externalKey)!;
          return { deposit: depositView(input.userId, s.deposits.get(id)!), created: id === depositId };
        },
        undefined,
        [
          ['deposit-ext', externalKey],
          ['deposit', depositId],
        ],
      );
    },
    confirmDeposit: (depositId, input) =>
      depositTransition(depositId, (id) => ({ type: 'ConfirmDeposit', data: { depositId: id, txHash: input.txHash ?? null } })),
    completeDeposit: (depositId, input) =>
      depositTransition(depositId, (id) => ({ type: 'CompleteDeposit', data: { depositId: id, txHash: input.txHash ?? null } })),
    failDeposit: (depositId, input) =>
      depositTransition(depositId, (id) => ({ type: 'FailDeposit', data: { depositId: id, reason: input.reason } })),

    placeBet: async (input) => {
      const amount = amountOf(input.currencyId, input.amount, 'amount');
      if (isLeft(amount)) return amount;
      const usdAmount = await usdOf(input.currencyId, amount.right, input.usdAmount, 'usdAmount');
      if (isLeft(usdAmount)) return usdAmount;
      const refused = await mayTransact(input.userId);
      if (refused) return left(refused);
      const guard = deps.betGuard;
      const folded = guard?.inAppend === true && deps.store.claimsKeys;
      if (guard && !folded) {
        const refusal = await guard(input.userId, usdAmount.right);
        if (refusal) return left(refusal);
      }
      const guards = folded ? [{ rule: BET_GUARD, userId: input.userId, usdAmount: usdFromMinor(usdAmount.right), at: now() }] : [];
      const place = () =>
        run(
          input.userId,
          {
            type: 'PlaceBet',
            data: {
              betId: input.id,
              roundId: input.roundId,
              gameId: input.gameId,
              gameIdentity: input.gameIdentity,
              currencyId: input.currencyId,
              amount: amount.right,
              usdAmount: usdAmount.right,
            },
          },
          (s, appended) => ({ bet: betView(input.userId, s.bets.get(input.id)!), created: appended }),
          undefined,
          [['bet', input.id]],
          guards,
        );
      if (!folded) return place();
      try {
        const result = await place();
        // A guard's refusal comes before the wallet's (a banned user without funds is told about the ban).
        return isLeft(result) ? left((await guard(input.userId, usdAmount.right)) ?? result.left) : result;
      } catch (error) {
        if (!(error instanceof GuardRefused)) throw error;
        // The append ran the guard and says what refused the bet: no second reading of the limits.
        const refusal = betGuardRefusal(input.userId, error.refusals?.find(Boolean));
        if (refusal) return left(refusal);
        throw error;
      }
    },
    settleBet: (betId, input) =>
      betTransition(betId, async (currencyId) => {
        const payout = amountOf(currencyId, input.payout, 'payout', false);
        if (isLeft(payout)) return payout;
        const usdPayout = await usdOf(currencyId, payout.right, input.usdPayout, 'usdPayout');
        if (isLeft(usdPayout)) return usdPayout;
        return right({ type: 'SettleBet', data: { betId, payout: payout.right, usdPayout: usdPayout.right } });
      }),
    rollbackBet: (betId) => betTransition(betId, async () => right({ type: 'RollbackBet', data: { betId } })),
    errorBet: (betId, input) =>
      betTransition(betId, async () => right({ type: 'ErrorBet', data: { betId, errorDetails: input.errorDetails } })),

    requestWithdrawal: async (input) => {
      const amount = amountOf(input.currencyId, input.amount, 'amount');
      if (isLeft(amount)) return amount;
      const usdAmount = await usdOf(input.currencyId, amount.right, input.usdAmount, 'usdAmount');
      if (isLeft(usdAmount)) return usdAmount;
      const withdrawalId = newId();
      const operationKey = input.operationKey ?? withdrawalId;
      const refused = await mayTransact(input.userId);
      if (refused) return left(refused);
      return run(
        input.userId,
        {
          type: 'RequestWithdrawal',
          data: {
            withdrawalId,
            operationKey,
            currencyId: input.currencyId,
            networkId: input.networkId,
            providerId: input.providerId,
            amount: amount.right,
            usdAmount: usdAmount.right,
            recipientAddress: input.recipientAddress,
            recipientMemo: input.recipientMemo ?? null,
          },
        },
        (s) => {
          const id = s.operations.get(operationKey)?.ref ?? withdrawalId;
          return { withdrawal: withdrawalView(input.userId, s.withdrawals.get(id)!), created: id === withdrawalId };
        },
        undefined,
        [['withdrawal', withdrawalId]],
      );
    },
    approveWithdrawal: (id, adminUserId) =>
      withdrawalTransition(id, { type: 'ApproveWithdrawal', data: { withdrawalId: id, adminUserId } }, adminUserId),
    rejectWithdrawal: (id, adminUserId, rejectReason) =>
      withdrawalTransition(id, { type: 'RejectWithdrawal', data: { withdrawalId: id, adminUserId, rejectReason } }, adminUserId),
    retryWithdrawal: (id, adminUserId) =>
      withdrawalTransition(id, { type: 'RetryWithdrawal', data: { withdrawalId: id, adminUserId } }, adminUserId),
    completeWithdrawal: (id, input) =>
      withdrawalTransition(id, { type: 'CompleteWithdrawal', data: { withdrawalId: id, txHash: input.txHash } }),
    failWithdrawal: (id, input) =>
      withdrawalTransition(id, { type: 'FailWithdrawal', data: { withdrawalId: id, failedReason: input.failedReason } }),

    tip: (input) => adminTip('TipUser', input),
    deductBalance: (input) => adminTip('DeductBalance', input),

    setBalance: async (input) => {
      const balance = amountOf(input.currencyId, input.balance, 'balance', false);
      if (isLeft(balance)) return balance;
      const operationKey = input.operationKey ?? newId();
      return adminBalanceCommand(input, {
        type: 'SetBalance',
        data: { adminUserId: input.adminUserId, operationKey, currencyId: input.currencyId, balance: balance.right },
      });
    },
    creditPrize: async (input) => {
      const amount = amountOf(input.currencyId, input.amount, 'amount');
      if (isLeft(amount)) return amount;
      const usdAmount = await usdOf(input.currencyId, amount.right, input.usdAmount, 'usdAmount');
      if (isLeft(usdAmount)) return usdAmount;
      const operationKey = input.operationKey ?? newId();
      return adminBalanceCommand(input, {
        type: 'CreditPrize',
        data: {
          adminUserId: input.adminUserId,
          operationKey,
          leaderboardId: input.leaderboardId,
          leaderboardUserId: input.leaderboardUserId,
          currencyId: input.currencyId,
          amount: amount.right,
          usdAmount: usdAmount.right,
        },
      });
    },
    claimAffiliateCommission: async (input) => {
      const amount = amountOf(input.currencyId, input.amount, 'amount');
      if (isLeft(amount)) return amount;
      const usdAmount = await usdOf(input.currencyId, amount.right, input.usdAmount, 'usdAmount');
      if (isLeft(usdAmount)) return usdAmount;
      const operationKey = `affiliate-claim:${input.claimId}`;
      return run(
        input.userId,
        {
          type: 'ClaimAffiliateCommission',
          data: { claimId: input.claimId, operationKey, currencyId: input.currencyId, amount: amount.right, usdAmount: usdAmount.right },
        },
        (s, appended) => {
          // The claim as first paid (a repeat answers the same, whatever usdAmount it sent or the balance did since).
          const c = s.claims.get(input.claimId)!;
          return {
            claim: {
              claimId: input.claimId,
              userId: input.userId,
              currencyId: c.currencyId,
              amount: fromMinor(c.currencyId, c.amount),
              usdAmount: usdFromMinor(c.usdAmount),
              transactionId: c.transactionId,
              balance: fromMinor(c.currencyId, c.balanceAfter),
            },
            created: appended,
          };
        },
        undefined,
        [['affiliate-claim', input.claimId]],
      );
    },

    balances: async (userId) => balanceViews(await handler.load(userId)),
  };

  async function adminTip(type: 'TipUser' | 'DeductBalance', input: Parameters<Ledger['tip']>[0]): ReturnType<Ledger['tip']> {
    const amount = amountOf(input.currencyId, input.amount, 'amount');
    if (isLeft(amount)) return amount;
    const usdAmount = await usdOf(input.currencyId, amount.right, undefined, 'usdAmount');
    if (isLeft(usdAmount)) return usdAmount;
    const tipId = await tipIds();
    const operationKey = input.operationKey ?? `tip-${tipId}`;
    return run(
      input.recipientUserId,
      {
        type,
        data: {
          adminUserId: input.adminUserId,
          operationKey,
          tipId,
          currencyId: input.currencyId,
          amount: amount.right,
          usdAmount: usdAmount.right,
          tag: input.tag ?? null,
          notes: input.notes,
        },
      },
      (s) => ({
        id: Number(s.operations.get(operationKey)?.ref ?? tipId),
        recipientUserId: input.recipientUserId,
        currencyId: input.currencyId,
        amount: fromMinor(input.currencyId, amount.right),
        type: type === 'TipUser' ? 'ADD_BALANCE' : 'DEDUCT_BALANCE',
      }),
      { adminUserId: input.adminUserId },
    );
  }

  return { ...ledger, internals: { handler, keys, rates } };
};
