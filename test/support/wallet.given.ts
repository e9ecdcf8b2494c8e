import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { expect } from 'vitest';
import { transfer, type Account, type Posting } from '../../src/domain/ledger/posting.js';
import type { CurrencyId } from '../../src/domain/money/currency.js';
import { toMinor, usdToMinor, type DecimalString, type Minor } from '../../src/domain/money/money.js';
import type * as C from '../../src/domain/wallet/wallet.commands.js';
import { decide } from '../../src/domain/wallet/wallet.decide.js';
import type { WalletError, WalletErrorTag } from '../../src/domain/wallet/wallet.errors.js';
import type { GameIdentity, WalletEvent } from '../../src/domain/wallet/wallet.events.js';
import { foldWallet } from '../../src/domain/wallet/wallet.evolve.js';
import { initialWalletState, type WalletState } from '../../src/domain/wallet/wallet.state.js';

/** The wallet under test and the decision time used by `when` unless told otherwise. */
export const USER = 1;
export const NOW = new Date('2025-03-01T12:00:00.000Z');
export const AT = NOW.toISOString();
export const META: C.CommandMetadata = { userId: USER, now: NOW };
/** Setup events are decided a day earlier, so their timestamps never match the ones under test by accident. */
export const SETUP_AT = '2025-02-28T12:00:00.000Z';
export const ADMIN = 99;

export const minor = (currencyId: CurrencyId, amount: string): Minor => toMinor(currencyId, amount as DecimalString);
export const usd = (amount: string): Minor => usdToMinor(amount as DecimalString);
export const dec = (s: string): DecimalString => s as DecimalString;
/** The two legs of moving `amount` from one account to another, as the decider writes them. */
export const moved = (from: Account, to: Account, currencyId: CurrencyId, amount: string): readonly Posting[] =>
  transfer(from, to, currencyId, minor(currencyId, amount));

/** A setup step: events as they are, or commands decided (and required to succeed) on the state so far. */
export type Given = WalletEvent | readonly WalletEvent[] | ((state: WalletState) => readonly WalletEvent[]);

const decideOk = (state: WalletState, command: C.WalletCommand, now: Date): readonly WalletEvent[] => {
  const result = decide(command, state, { userId: state.userId, now });
  if (isLeft(result)) throw new Error(`setup command ${command.type} was refused: ${JSON.stringify(result.left)}`);
  return result.right;
};

/** Setup: these commands already happened (each decided on the state left by the previous ones). */
export const applied =
  (...commands: readonly C.WalletCommand[]) =>
  (state: WalletState): readonly WalletEvent[] => {
    const events: WalletEvent[] = [];
    for (const command of commands) events.push(...decideOk(foldWallet(state, events), command, new Date(SETUP_AT)));
    return events;
  };

let depositSeq = 0;
/** Setup: the events of a deposit requested and completed, crediting `amount`. */
export const deposited =
  (userId: number, currencyId: CurrencyId, amount: string) =>
  (state: WalletState): readonly WalletEvent[] => {
    if (userId !== state.userId) throw new Error(`deposited(${userId}) given on the wallet of user ${state.userId}`);
    const id = `setup-dep-${++depositSeq}`;
    return applied(requestDeposit(id, currencyId, amount), completeDeposit(id))(state);
  };

export const foldGiven = (userId: number, steps: readonly Given[]): WalletState =>
  steps.reduce<WalletState>((state, step) => {
    const events = typeof step === 'function' ? step(state) : Array.isArray(step) ? step : [step as WalletEvent];
    return foldWallet(state, events);
  }, initialWalletState(userId));

/** given(...setup).when(command).then(...events) | .thenFails('Tag', {fields}); each returns what it checked. */
export const given = (...steps: readonly Given[]) => ({
  when: (command: C.WalletCommand, meta: C.CommandMetadata = META) => {
    const state = foldGiven(meta.userId, steps);
    const result = decide(command, state, meta);
    return {
      state,
      result,
      /** The command succeeds with exactly these events; returns the state after them. */
      then: (...expected: readonly WalletEvent[]): WalletState => {
        expect(result).toEqual({ _tag: 'Right', right: expected });
        return foldWallet(state, expected);
      },
      /** The command succeeds with some events (to inspect partially); returns them and the state after them. */
      thenAccepted: (): Readonly<{ events: readonly WalletEvent[]; state: WalletState }> => {
        if (isLeft(result)) throw new Error(`expected events, got ${JSON.stringify(result.left)}`);
        expect(result.right.length).toBeGreaterThan(0);
        return { events: result.right, state: foldWallet(state, result.right) };
      },
      /** The command is accepted as a repeat: no new events. */
      thenNothing: (): void => {
        expect(result).toEqual({ _tag: 'Right', right: [] });
      },
      thenFails: (tag: WalletErrorTag, fields: Partial<Record<string, unknown>> = {}): WalletError => {
        if (isRight(result)) throw new Error(`expected ${tag}, got events ${JSON.stringify(result.right)}`);
        expect(result.left).toMatchObject({ _tag: tag, ...fields });
        return result.left;
      },
    };
  },
});

// Command builders: amounts as decimal strings in the currency, the rest defaulted.
export const GAME: GameIdentity = { name: 'Dice', slug: 'dice', type: 'originals', provider: { name: 'House' } };

export const requestDeposit = (
  depositId: string,
  currencyId: CurrencyId,
  amount: string,
  over: Partial<C.RequestDeposit['data']> = {},
): C.RequestDeposit => ({
  type: 'RequestDeposit',
  data: {
    depositId,
    externalId: `ext-${depositId}`,
    providerId: 'prov',
    networkId: 'net',
    currencyId,
    amount: minor(currencyId, amount),
    usdAmount: 0n,
    txHash: null,
    payAddress: null,
    payMemo: null,
    ...over,
  },
});
export const confirmDeposit = (depositId: string, txHash: string | null = null): C.ConfirmDeposit => ({
  type: 'ConfirmDeposit',
  data: { depositId, txHash },
});
export const completeDeposit = (depositId: string, txHash: string | null = null): C.CompleteDeposit => ({
  type: 'CompleteDeposit',
  data: { depositId, txHash },
});
export const failDeposit = (depositId: string, reason = 'expired'): C.FailDeposit => ({ type: 'FailDeposit', data: { depositId, reason } });

export const placeBet = (betId: string, currencyId: CurrencyId, amount: string, over: Partial<C.PlaceBet['data']> = {}): C.PlaceBet => ({
  type: 'PlaceBet',
  data: {
    betId,
    roundId: `round-${betId}`,
    gameId: 7,
    gameIdentity: GAME,
    currencyId,
    amount: minor(currencyId, amount),
    usdAmount: 0n,
    ...over,
  },
});
/** Payouts are in the bet's currency; pass it when it is not BTC. */
export const settleBet = (betId: string, payout: string, currencyId: CurrencyId = 'BTC', usdPayout = '0'): C.SettleBet => ({
  type: 'SettleBet',
  data: { betId, payout: minor(currencyId, payout), usdPayout: usd(usdPayout) },
});
export const rollbackBet = (betId: string): C.RollbackBet => ({ type: 'RollbackBet', data: { betId } });
export const errorBet = (betId: string, errorDetails = 'game crashed'): C.ErrorBet => ({ type: 'ErrorBet', data: { betId, errorDetails } });

export const requestWithdrawal = (
  withdrawalId: string,
  currencyId: CurrencyId,
  amount: string,
  over: Partial<C.RequestWithdrawal['data']> = {},
): C.RequestWithdrawal => ({
  type: 'RequestWithdrawal',
  data: {
    withdrawalId,
    operationKey: `key-${withdrawalId}`,
    currencyId,
    networkId: 'net',
    providerId: 'prov',
    amount: minor(currencyId, amount),
    usdAmount: 0n,
    recipientAddress: 'addr-1',
    recipientMemo: null,
    ...over,
  },
});
export const approveWithdrawal = (withdrawalId: string, adminUserId = ADMIN): C.ApproveWithdrawal => ({
  type: 'ApproveWithdrawal',
  data: { withdrawalId, adminUserId },
});
export const rejectWithdrawal = (withdrawalId: string, rejectReason = 'suspicious', adminUserId = ADMIN): C.RejectWithdrawal => ({
  type: 'RejectWithdrawal',
  data: { withdrawalId, adminUserId, rejectReason },
});
export const retryWithdrawal = (withdrawalId: string, adminUserId = ADMIN): C.RetryWithdrawal => ({
  type: 'RetryWithdrawal',
  data: { withdrawalId, adminUserId },
});
export const completeWithdrawal = (withdrawalId: string, txHash = '0xabc'): C.CompleteWithdrawal => ({
  type: 'CompleteWithdrawal',
  data: { withdrawalId, txHash },
});
export const failWithdrawal = (withdrawalId: string, failedReason = 'provider down'): C.FailWithdrawal => ({
  type: 'FailWithdrawal',
  data: { withdrawalId, failedReason },
});

type AdminOver<T extends { data: unknown }> = Partial<T['data']>;
export const tipUser = (tipId: number, currencyId: CurrencyId, amount: string, over: AdminOver<C.TipUser> = {}): C.TipUser => ({
  type: 'TipUser',
  data: {
    adminUserId: ADMIN,
    operationKey: `tip-key-${tipId}`,
    tipId,
    currencyId,
    amount: minor(currencyId, amount),
    usdAmount: 0n,
    tag: null,
    notes: '',
    ...over,
  },
});
export const deductBalance = (
  tipId: number,
  currencyId: CurrencyId,
  amount: string,
  over: AdminOver<C.DeductBalance> = {},
): C.DeductBalance => ({
  type: 'DeductBalance',
  data: {
    adminUserId: ADMIN,
    operationKey: `ded-key-${tipId}`,
    tipId,
    currencyId,
    amount: minor(currencyId, amount),
    usdAmount: 0n,
    tag: null,
    notes: '',
    ...over,
  },
});
export const setBalance = (
  operationKey: string,
  currencyId: CurrencyId,
  balance: string,
  over: AdminOver<C.SetBalance> = {},
): C.SetBalance => ({
  type: 'SetBalance',
  data: { adminUserId: ADMIN, operationKey, currencyId, balance: minor(currencyId, balance), ...over },
});
export const claimAffiliate = (
  claimId: string,
  currencyId: CurrencyId,
  amount: string,
  over: Partial<C.ClaimAffiliateCommission['data']> = {},
): C.ClaimAffiliateCommission => ({
  type: 'ClaimAffiliateCommission',
  data: { claimId, operationKey: `affiliate-claim:${claimId}`, currencyId, amount: minor(currencyId, amount), usdAmount: 0n, ...over },
});
export const creditPrize = (
  operationKey: string,
  currencyId: CurrencyId,
  amount: string,
  over: AdminOver<C.CreditPrize> = {},
): C.CreditPrize => ({
  type: 'CreditPrize',
  data: {
    adminUserId: ADMIN,
    operationKey,
    leaderboardId: 'lb-1',
    leaderboardUserId: 'lbu-1',
    currencyId,
    amount: minor(currencyId, amount),
    usdAmount: 0n,
    ...over,
  },
});
