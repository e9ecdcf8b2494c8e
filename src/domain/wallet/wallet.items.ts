import type { Map as IMap } from 'immutable';
import type { WalletCommand } from './wallet.commands.js';
import { evolve } from './wallet.evolve.js';
import type { WalletEvent } from './wallet.events.js';
import { depositExternalKey, initialWalletState, type WalletState } from './wallet.state.js';

/**
 * The items a wallet keeps while they are open, and looks up by key once they are final. An item key names one item
 * of one wallet: `bet:<betId>`, `deposit:<depositId>`, `deposit-ext:<providerId>:<externalId>`, `withdrawal:<id>`,
 * `claim:<claimId>` and `op:<operationKey>` (an admin operation or a withdrawal's idempotency key).
 *
 * Each event carries at most two keys: its primary key (the first of betId, depositId, withdrawalId, claimId,
 * operationKey it has) and, for the three requests that open an item under a second name, that name. The event
 * store indexes both (see `WALLET_ITEM_KEYS` in src/commands/wallet-items.ts, which states the same rule in SQL).
 */
export type ItemKey = string;

const field = (data: Readonly<Record<string, unknown>>, name: string): string | undefined => {
  const v = data[name];
  return typeof v === 'string' ? v : undefined;
};

/** The event's primary key: what every event of one item shares. */
export const primaryItemKey = (data: Readonly<Record<string, unknown>>): ItemKey | undefined => {
  const bet = field(data, 'betId');
  if (bet !== undefined) return `bet:${bet}`;
  const deposit = field(data, 'depositId');
  if (deposit !== undefined) return `deposit:${deposit}`;
  const withdrawal = field(data, 'withdrawalId');
  if (withdrawal !== undefined) return `withdrawal:${withdrawal}`;
  const claim = field(data, 'claimId');
  if (claim !== undefined) return `claim:${claim}`;
  const op = field(data, 'operationKey');
  return op === undefined ? undefined : `op:${op}`;
};

/** The second name an item's opening event is found by: the deposit's provider key, the withdrawal's or claim's operation key. */
export const secondaryItemKey = (type: string, data: Readonly<Record<string, unknown>>): ItemKey | undefined => {
  switch (type) {
    case 'DepositRequested': {
      const [provider, external] = [field(data, 'providerId'), field(data, 'externalId')];
      return provider === undefined || external === undefined ? undefined : `deposit-ext:${depositExternalKey(provider, external)}`;
    }
    case 'WithdrawalRequested':
    case 'AffiliateCommissionClaimed': {
      const op = field(data, 'operationKey');
      return op === undefined ? undefined : `op:${op}`;
    }
    default:
      return undefined;
  }
};

export const itemKeysOfEvent = (type: string, data: Readonly<Record<string, unknown>>): ItemKey[] =>
  [primaryItemKey(data), secondaryItemKey(type, data)].filter((k): k is ItemKey => k !== undefined);

/** The keys deciding a command needs to know about: held in the state while open, looked up once final. */
export const itemKeysOfCommand = (command: WalletCommand): ItemKey[] => {
  switch (command.type) {
    case 'RequestDeposit':
      return [`deposit-ext:${depositExternalKey(command.data.providerId, command.data.externalId)}`, `deposit:${command.data.depositId}`];
    case 'ConfirmDeposit':
    case 'CompleteDeposit':
    case 'FailDeposit':
    case 'ReleaseDeposit':
    case 'ReturnDeposit':
      return [`deposit:${command.data.depositId}`];
    case 'PlaceBet':
    case 'SettleBet':
    case 'RollbackBet':
    case 'ErrorBet':
      return [`bet:${command.data.betId}`];
    case 'RequestWithdrawal':
      return [`op:${command.data.operationKey}`, `withdrawal:${command.data.withdrawalId}`];
    case 'ApproveWithdrawal':
    case 'RejectWithdrawal':
    case 'RetryWithdrawal':
    case 'CompleteWithdrawal':
    case 'FailWithdrawal':
      return [`withdrawal:${command.data.withdrawalId}`];
    case 'TipUser':
    case 'DeductBalance':
    case 'SetBalance':
    case 'CreditPrize':
      return [`op:${command.data.operationKey}`];
    case 'ClaimAffiliateCommission':
      return [`op:${command.data.operationKey}`, `claim:${command.data.claimId}`];
    default: {
      const unreachable: never = command;
      throw new Error(`invariant: unknown wallet command ${(unreachable as { type: string }).type}`);
    }
  }
};

const split = (key: ItemKey): [string, string] => {
  const i = key.indexOf(':');
  return [key.slice(0, i), key.slice(i + 1)];
};

/** Whether the state holds what the key names (an open item, or one looked up for this decision). */
export const holdsItem = (state: WalletState, key: ItemKey): boolean => {
  const [kind, id] = split(key);
  switch (kind) {
    case 'bet':
      return state.bets.has(id);
    case 'deposit':
      return state.deposits.has(id);
    case 'deposit-ext':
      return state.depositsByExternalKey.has(id);
    case 'withdrawal':
      return state.withdrawals.has(id);
    case 'claim':
      return state.claims.has(id);
    case 'op':
      return state.operations.has(id);
    default:
      return false;
  }
};

/**
 * Drops the named items that are final: a settled, rolled back or errored bet, a complete or failed deposit, a complete
 * or denied withdrawal (a failed one may be retried), every keyed operation and claim. Balances stay; nothing that
 * deciding needs later is lost, since a final item's events are found again by its key.
 */
export const forgetFinal = (state: WalletState, keys: Iterable<ItemKey>): WalletState => {
  let s = state;
  for (const key of keys) {
    const [kind, id] = split(key);
    switch (kind) {
      case 'bet': {
        const bet = s.bets.get(id);
        if (bet && bet.status !== 'CREATED') s = { ...s, bets: s.bets.delete(id) };
        break;
      }
      case 'deposit':
      case 'deposit-ext': {
        const depositId = kind === 'deposit' ? id : s.depositsByExternalKey.get(id);
        const deposit = depositId === undefined ? undefined : s.deposits.get(depositId);
        if (deposit && (deposit.status === 'COMPLETE' || deposit.status === 'FAILED')) {
          s = {
            ...s,
            deposits: s.deposits.delete(deposit.id),
            depositsByExternalKey: s.depositsByExternalKey.delete(depositExternalKey(deposit.providerId, deposit.externalId)),
          };
        }
        break;
      }
      case 'withdrawal': {
        const w = s.withdrawals.get(id);
        if (w && (w.status === 'COMPLETE' || w.status === 'DENIED')) s = { ...s, withdrawals: s.withdrawals.delete(id) };
        break;
      }
      case 'claim':
        if (s.claims.has(id)) s = { ...s, claims: s.claims.delete(id) };
        break;
      case 'op':
        if (s.operations.has(id)) s = { ...s, operations: s.operations.delete(id) };
        break;
      default:
        break;
    }
  }
  return s;
};

/** Folds one event and forgets what it made final: the state a wallet keeps between commands. */
export const evolveOpen = (state: WalletState, event: WalletEvent): WalletState =>
  forgetFinal(evolve(state, event), itemKeysOfEvent(event.type, event.data));

/**
 * The state with the items of `events` (all the events found under some keys) added where it does not hold them: their
 * balances are not touched (the state's own fold already counts them). What the state holds wins: it is newer.
 */
export const withRecalled = (state: WalletState, events: readonly WalletEvent[]): WalletState => {
  if (events.length === 0) return state;
  const items = events.reduce(evolve, initialWalletState(state.userId));
  const add = <V>(held: IMap<string, V>, found: IMap<string, V>): IMap<string, V> => held.merge(found.filter((_, k) => !held.has(k)));
  return {
    ...state,
    bets: add(state.bets, items.bets),
    deposits: add(state.deposits, items.deposits),
    depositsByExternalKey: add(state.depositsByExternalKey, items.depositsByExternalKey),
    withdrawals: add(state.withdrawals, items.withdrawals),
    operations: add(state.operations, items.operations),
    claims: add(state.claims, items.claims),
  };
};

/** Open items the state holds: what a cached wallet costs beyond its balances. */
export const openItems = (state: WalletState): number =>
  state.bets.size + state.deposits.size + state.withdrawals.size + state.operations.size + state.claims.size;
