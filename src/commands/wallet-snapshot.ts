import { Map as IMap } from 'immutable';
import type { WalletState } from '../domain/wallet/wallet.state.js';

/**
 * A wallet's kept state (balances and open items) as a snapshot document. Bumped whenever what the state keeps changes:
 * a snapshot of another version is ignored and the wallet folds from the start (and writes a new one).
 */
export const WALLET_SNAPSHOT_VERSION = 2;

const MAPS = ['balances', 'deposits', 'depositsByExternalKey', 'bets', 'withdrawals', 'operations', 'claims', 'tallies'] as const;

/** bigint as {"$n": "<digits>"}: JSON has no integers beyond 2^53, and minor units go far past it. */
const replacer = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? { $n: value.toString() } : value);
const reviver = (_key: string, value: unknown): unknown => {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === '$n' && typeof (value as { $n: unknown }).$n === 'string')
      return BigInt((value as { $n: string }).$n);
  }
  return value;
};

export const encodeWalletSnapshot = (state: WalletState): Record<string, unknown> =>
  JSON.parse(
    JSON.stringify(
      {
        v: WALLET_SNAPSHOT_VERSION,
        userId: state.userId,
        // Sorted by key: the same state gives the same document, however its maps were built.
        ...Object.fromEntries(MAPS.map((m) => [m, [...state[m].entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))])),
      },
      replacer,
    ),
  ) as Record<string, unknown>;

/** The state a snapshot holds, or undefined when it is of another version or user. */
export const decodeWalletSnapshot = (userId: number, data: Readonly<Record<string, unknown>>): WalletState | undefined => {
  if (data.v !== WALLET_SNAPSHOT_VERSION || data.userId !== userId) return undefined;
  const revived = JSON.parse(JSON.stringify(data), reviver) as Record<string, [string, unknown][]>;
  const maps = Object.fromEntries(MAPS.map((m) => [m, IMap(revived[m] ?? [])]));
  return { userId, ...maps } as unknown as WalletState;
};
