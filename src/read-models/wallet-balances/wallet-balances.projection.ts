import { hasMovement } from '../../domain/wallet/wallet.events.js';
import { insertRows, MOVEMENT_EVENT_TYPES, userLegAmount, walletRecords, type Projection, type Row } from '../../projections/projection.js';

const HANDLES: readonly string[] = MOVEMENT_EVENT_TYPES;
/** Each user's balance per currency: the `balanceAfter` of the batch's last event with a leg on the user's account. */
export const walletBalancesProjection: Projection = {
  name: 'wallet-balances',
  version: 1,
  handles: HANDLES,
  tables: ['wallet_balances'],
  project(events) {
    const latest = new Map<string, Row>();
    for (const { userId, event } of walletRecords(events, HANDLES)) {
      if (!hasMovement(event) || userLegAmount(userId, event) === undefined) continue;
      const d = event.data;
      latest.set(`${userId}/${d.currencyId}`, { user_id: userId, currency_id: d.currencyId, balance: d.balanceAfter, updated_at: d.at });
    }
    return insertRows(
      'wallet_balances',
      [...latest.values()],
      'ON CONFLICT (user_id, currency_id) DO UPDATE SET balance = excluded.balance, updated_at = excluded.updated_at',
    );
  },
};
