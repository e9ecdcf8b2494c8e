import { toMinor, toUsdMinor, usdFromMinor, type DecimalString } from '../domain/money/money.js';
import { hasMovement, isWalletEventType, walletStreamUserId, type WalletEvent } from '../domain/wallet/wallet.events.js';
import { formatPosition, type RecordedEvent } from '../infra/event-store/event-store.port.js';
import { TRANSACTION_TYPES } from '../projections/transactions.projection.js';

/** A server-to-client event for one user's sockets, tagged with the ledger position it came from. */
export type UserServerEvent = Readonly<{
  name: 'BalanceUpdated' | 'BalanceTippedSuccess';
  userId: number;
  /** Ledger position (commit/prepare): clients use it to detect gaps and ask for a replay. */
  position: string;
  payload: Readonly<Record<string, unknown>>;
}>;

export type EventLookups = Readonly<{
  usdRate: (currencyId: string) => DecimalString;
  username: (userId: number) => string | null;
}>;

/**
 * What a recorded ledger event tells the user's sockets. BalanceUpdated carries the user's new
 * balance (`amount`) in that currency, its USD value at today's rate, and `source`, the accounting
 * transaction type (DEPOSIT, BET, BET_PAYOUT, ADMIN_TIP, ...). An admin tip also gives BalanceTippedSuccess.
 */
export const serverEventsOf = (recorded: RecordedEvent, lookups: EventLookups): UserServerEvent[] => {
  const userId = walletStreamUserId(recorded.streamId);
  if (userId === undefined || !isWalletEventType(recorded.type)) return [];
  const event = { type: recorded.type, data: recorded.data } as WalletEvent;
  if (!hasMovement(event)) return [];
  const d = event.data;
  const touchesUser = d.postings.some((p) => p.account === `user:${userId}`);
  const source = TRANSACTION_TYPES[event.type];
  if (!touchesUser || source === null) return [];
  const position = formatPosition(recorded.position);
  const balance = toMinor(d.currencyId, d.balanceAfter);
  const out: UserServerEvent[] = [{
    name: 'BalanceUpdated', userId, position,
    payload: { currencyId: d.currencyId, amount: d.balanceAfter, usdAmount: usdFromMinor(toUsdMinor(d.currencyId, balance, lookups.usdRate(d.currencyId))), source },
  }];
  if (event.type === 'AdminTipCredited') {
    out.push({
      name: 'BalanceTippedSuccess', userId, position,
      payload: { amount: event.data.amount, currencyId: event.data.currencyId, fromAdminUsername: lookups.username(event.data.adminUserId) },
    });
  }
  return out;
};
