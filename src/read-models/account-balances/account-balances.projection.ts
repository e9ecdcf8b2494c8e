import { hasMovement } from '../../domain/wallet/wallet.events.js';
import { fromMinor, toMinor, type Minor } from '../../domain/money/money.js';
import type { CurrencyId } from '../../domain/money/currency.js';
import { insertRows, MOVEMENT_EVENT_TYPES, walletRecords, type Projection } from '../../projections/projection.js';

const HANDLES: readonly string[] = MOVEMENT_EVENT_TYPES;
/** The trial balance: every posting leg summed per account (house and user) and currency; per currency they sum to zero. */
export const accountBalancesProjection: Projection = {
  name: 'account-balances',
  version: 1,
  handles: HANDLES,
  tables: ['account_balances'],
  project(events) {
    const sums = new Map<string, { account: string; currencyId: CurrencyId; sum: Minor; at: string }>();
    for (const { event } of walletRecords(events, HANDLES)) {
      if (!hasMovement(event)) continue;
      for (const leg of event.data.postings) {
        const key = `${leg.account}/${leg.currencyId}`;
        const prev = sums.get(key) ?? { account: leg.account, currencyId: leg.currencyId, sum: 0n, at: event.data.at };
        sums.set(key, { ...prev, sum: prev.sum + toMinor(leg.currencyId, leg.amount), at: event.data.at });
      }
    }
    const rows = [...sums.values()].map((s) => ({
      account: s.account,
      currency_id: s.currencyId,
      balance: fromMinor(s.currencyId, s.sum),
      updated_at: s.at,
    }));
    return insertRows(
      'account_balances',
      rows,
      `ON CONFLICT (account, currency_id) DO UPDATE SET
      balance = trim_scale(account_balances.balance + excluded.balance),
      updated_at = GREATEST(account_balances.updated_at, excluded.updated_at)`,
    );
  },
};
