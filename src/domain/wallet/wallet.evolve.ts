import { userAccount, type Posting } from '../ledger/posting.js';
import { toMinor, usdToMinor } from '../money/money.js';
import { businessTimeOf, type WalletEvent } from './wallet.events.js';
import { tallyEvent } from './wallet.tallies.js';
import { depositExternalKey, operationFingerprint, type OperationEntry, type WalletState } from './wallet.state.js';

/** Balances move only by the user's own legs of the event's postings: never re-derived from amounts. */
const applyPostings = (state: WalletState, postings: readonly Posting[]): WalletState => {
  const own = userAccount(state.userId);
  const balances = postings.reduce(
    (acc, p) => (p.account === own ? acc.update(p.currencyId, 0n, (b) => b + toMinor(p.currencyId, p.amount)) : acc),
    state.balances,
  );
  return balances === state.balances ? state : { ...state, balances };
};

const remember = (state: WalletState, key: string, entry: OperationEntry): WalletState => ({
  ...state,
  operations: state.operations.set(key, entry),
});

/** Folds one event into the wallet state, its tallies too. Pure and total; an event about an unknown entry only moves balances. */
export const evolve = (state: WalletState, event: WalletEvent): WalletState => {
  const next = evolveItems(state, event);
  const tallies = tallyEvent(state.tallies, state, event);
  return tallies === next.tallies ? next : { ...next, tallies };
};

const evolveItems = (state: WalletState, event: WalletEvent): WalletState => {
  switch (event.type) {
    case 'DepositRequested': {
      const d = event.data;
      return {
        ...state,
        deposits: state.deposits.set(d.depositId, {
          id: d.depositId,
          externalId: d.externalId,
          providerId: d.providerId,
          networkId: d.networkId,
          currencyId: d.currencyId,
          amount: toMinor(d.currencyId, d.amount),
          usdAmount: usdToMinor(d.usdAmount),
          status: 'PENDING',
          txHash: d.txHash,
          payAddress: d.payAddress,
          payMemo: d.payMemo,
          transactionId: null,
          failedReason: null,
          createdAt: d.at,
          updatedAt: d.at,
          countedAt: businessTimeOf(d),
          ...(d.overLimit ? { overLimit: true } : {}),
        }),
        depositsByExternalKey: state.depositsByExternalKey.set(depositExternalKey(d.providerId, d.externalId), d.depositId),
      };
    }
    case 'DepositConfirmed': {
      const d = event.data;
      return {
        ...state,
        deposits: state.deposits.update(
          d.depositId,
          (e) => e && { ...e, status: 'CONFIRMED', txHash: d.txHash ?? e.txHash, updatedAt: d.at },
        ),
      };
    }
    case 'DepositCompleted': {
      const d = event.data;
      const next = applyPostings(state, d.postings);
      return {
        ...next,
        deposits: next.deposits.update(
          d.depositId,
          (e) =>
            e && {
              ...e,
              status: 'COMPLETE',
              txHash: d.txHash ?? e.txHash,
              transactionId: d.transactionId,
              updatedAt: d.at,
              ...(d.held ? { held: true } : {}),
            },
        ),
      };
    }
    case 'DepositReleased':
    case 'DepositReturned': {
      const d = event.data;
      const next = applyPostings(state, d.postings);
      const settlement = event.type === 'DepositReleased' ? 'RELEASED' : 'RETURNED';
      return { ...next, deposits: next.deposits.update(d.depositId, (e) => e && { ...e, settlement, updatedAt: d.at }) };
    }
    case 'DepositFailed': {
      const d = event.data;
      return {
        ...state,
        deposits: state.deposits.update(d.depositId, (e) => e && { ...e, status: 'FAILED', failedReason: d.reason, updatedAt: d.at }),
      };
    }
    case 'BetPlaced': {
      const d = event.data;
      const next = applyPostings(state, d.postings);
      return {
        ...next,
        bets: next.bets.set(d.betId, {
          id: d.betId,
          roundId: d.roundId,
          gameId: d.gameId,
          gameIdentity: d.gameIdentity,
          currencyId: d.currencyId,
          amount: toMinor(d.currencyId, d.amount),
          usdAmount: usdToMinor(d.usdAmount),
          status: 'CREATED',
          payout: 0n,
          usdPayout: 0n,
          multiplier: null,
          errorDetails: null,
          transactionId: d.transactionId,
          createdAt: d.at,
          updatedAt: d.at,
          settledAt: null,
        }),
      };
    }
    case 'BetSettled': {
      const d = event.data;
      const next = applyPostings(state, d.postings);
      return {
        ...next,
        bets: next.bets.update(
          d.betId,
          (e) =>
            e && {
              ...e,
              status: 'SETTLED',
              payout: toMinor(d.currencyId, d.payout),
              usdPayout: usdToMinor(d.usdPayout),
              multiplier: d.multiplier,
              updatedAt: d.at,
              settledAt: d.at,
            },
        ),
      };
    }
    case 'BetRolledBack': {
      const d = event.data;
      const next = applyPostings(state, d.postings);
      return { ...next, bets: next.bets.update(d.betId, (e) => e && { ...e, status: 'ROLLBACK', updatedAt: d.at }) };
    }
    case 'BetErrored': {
      const d = event.data;
      const next = applyPostings(state, d.postings);
      return {
        ...next,
        bets: next.bets.update(d.betId, (e) => e && { ...e, status: 'ERROR', errorDetails: d.errorDetails, updatedAt: d.at }),
      };
    }
    case 'WithdrawalRequested': {
      const d = event.data;
      const amount = toMinor(d.currencyId, d.amount);
      const next = applyPostings(state, d.postings);
      return remember(
        {
          ...next,
          withdrawals: next.withdrawals.set(d.withdrawalId, {
            id: d.withdrawalId,
            currencyId: d.currencyId,
            networkId: d.networkId,
            providerId: d.providerId,
            amount,
            usdAmount: usdToMinor(d.usdAmount),
            recipientAddress: d.recipientAddress,
            recipientMemo: d.recipientMemo,
            status: 'PENDING',
            transactionId: d.transactionId,
            txHash: null,
            rejectReason: null,
            failedReason: null,
            confirmedAt: null,
            confirmedByUserId: null,
            createdAt: d.at,
            updatedAt: d.at,
          }),
        },
        d.operationKey,
        {
          commandType: 'RequestWithdrawal',
          ref: d.withdrawalId,
          fingerprint: operationFingerprint(d.currencyId, amount, d.networkId, d.recipientAddress),
        },
      );
    }
    case 'WithdrawalApproved':
    case 'WithdrawalRetried': {
      const d = event.data;
      return {
        ...state,
        withdrawals: state.withdrawals.update(
          d.withdrawalId,
          (e) =>
            e && {
              ...e,
              status: 'CONFIRMED',
              confirmedAt: d.at,
              confirmedByUserId: d.adminUserId,
              updatedAt: d.at,
            },
        ),
      };
    }
    case 'WithdrawalRejected': {
      const d = event.data;
      const next = applyPostings(state, d.postings);
      return {
        ...next,
        withdrawals: next.withdrawals.update(
          d.withdrawalId,
          (e) => e && { ...e, status: 'DENIED', rejectReason: d.rejectReason, updatedAt: d.at },
        ),
      };
    }
    case 'WithdrawalCompleted': {
      const d = event.data;
      const next = applyPostings(state, d.postings);
      return {
        ...next,
        withdrawals: next.withdrawals.update(d.withdrawalId, (e) => e && { ...e, status: 'COMPLETE', txHash: d.txHash, updatedAt: d.at }),
      };
    }
    case 'WithdrawalFailed': {
      const d = event.data;
      return {
        ...state,
        withdrawals: state.withdrawals.update(
          d.withdrawalId,
          (e) => e && { ...e, status: 'FAILED', failedReason: d.failedReason, updatedAt: d.at },
        ),
      };
    }
    case 'AdminTipCredited':
    case 'AdminTipDeducted': {
      const d = event.data;
      return remember(applyPostings(state, d.postings), d.operationKey, {
        commandType: event.type === 'AdminTipCredited' ? 'TipUser' : 'DeductBalance',
        ref: String(d.tipId),
        fingerprint: operationFingerprint(d.currencyId, toMinor(d.currencyId, d.amount)),
      });
    }
    case 'BalanceSet': {
      const d = event.data;
      return remember(applyPostings(state, d.postings), d.operationKey, {
        commandType: 'SetBalance',
        ref: d.transactionId,
        fingerprint: operationFingerprint(d.currencyId, toMinor(d.currencyId, d.balance)),
      });
    }
    case 'LeaderboardPrizeCredited': {
      const d = event.data;
      return remember(applyPostings(state, d.postings), d.operationKey, {
        commandType: 'CreditPrize',
        ref: d.transactionId,
        fingerprint: operationFingerprint(d.currencyId, toMinor(d.currencyId, d.amount), d.leaderboardId, d.leaderboardUserId),
      });
    }
    case 'AffiliateCommissionClaimed': {
      const d = event.data;
      const next = applyPostings(state, d.postings);
      const claim = {
        currencyId: d.currencyId,
        amount: toMinor(d.currencyId, d.amount),
        usdAmount: usdToMinor(d.usdAmount),
        transactionId: d.transactionId,
        balanceAfter: toMinor(d.currencyId, d.balanceAfter),
      };
      return remember({ ...next, claims: next.claims.set(d.claimId, claim) }, d.operationKey, {
        commandType: 'ClaimAffiliateCommission',
        ref: d.claimId,
        fingerprint: operationFingerprint(d.currencyId, toMinor(d.currencyId, d.amount), d.claimId),
      });
    }
    default: {
      const unreachable: never = event;
      throw new Error(`invariant: unknown wallet event ${JSON.stringify(unreachable)}`);
    }
  }
};

export const foldWallet = (initial: WalletState, events: readonly WalletEvent[]): WalletState => events.reduce(evolve, initial);
