import { transfer, type Account, type Posting } from '../../src/domain/ledger/posting.js';
import type { CurrencyId } from '../../src/domain/money/currency.js';
import { toMinor, usdToMinor, type DecimalString, type Minor } from '../../src/domain/money/money.js';
import type * as C from '../../src/domain/wallet/wallet.commands.js';
import { decide } from '../../src/domain/wallet/wallet.decide.js';
import type { GameIdentity, WalletEvent } from '../../src/domain/wallet/wallet.events.js';
import { evolve } from '../../src/domain/wallet/wallet.evolve.js';
import { initialWalletState, type WalletState } from '../../src/domain/wallet/wallet.state.js';
import { deciderSpec } from './decider.js';

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

/** given(...setup).when(command).then(...events) | .thenFails('Tag', {fields}); each returns what it checked. */
export const { given, applied } = deciderSpec({
  decide,
  evolve,
  initialState: initialWalletState(USER),
  meta: META,
  setupMeta: { userId: USER, now: new Date(SETUP_AT) },
});

let depositSeq = 0;
/** Setup: the events of a deposit requested and completed, crediting `amount`. */
export const deposited =
  (userId: number, currencyId: CurrencyId, amount: string) =>
  (state: WalletState): readonly WalletEvent[] => {
    if (userId !== state.userId) throw new Error(`deposited(${userId}) given on the wallet of user ${state.userId}`);
    const id = `setup-dep-${++depositSeq}`;
    return applied(requestDeposit(id, currencyId, amount), completeDeposit(id))(state);
  };

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
export const releaseDeposit = (depositId: string, reason = 'limit reviewed', adminUserId = ADMIN): C.ReleaseDeposit => ({
  type: 'ReleaseDeposit',
  data: { depositId, adminUserId, reason },
});
export const returnDeposit = (depositId: string, reason = 'sent back', adminUserId = ADMIN): C.ReturnDeposit => ({
  type: 'ReturnDeposit',
  data: { depositId, adminUserId, reason },
});

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
