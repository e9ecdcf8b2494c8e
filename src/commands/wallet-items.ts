import { itemKeysOfEvent } from '../domain/wallet/wallet.items.js';
import type { StreamKeyRule } from '../infra/event-store/event-store.port.js';
import { secondaryTypesSql, streamKeySql } from '../infra/event-store/postgres/postgres.reads.js';

const SECONDARY_TYPES = ['DepositRequested', 'WithdrawalRequested', 'AffiliateCommissionClaimed'] as const;

/**
 * The wallet's item keys (src/domain/wallet/wallet.items.ts) in SQL, for the event store's lookup by key. The two
 * expressions must give what `primaryItemKey` and `secondaryItemKey` give; migration 0054 indexes them as written here,
 * and test/integration/wallet-items.test.ts checks both the agreement and that the lookup reads through the indexes.
 */
export const WALLET_ITEM_KEYS: StreamKeyRule = {
  name: 'wallet-items',
  primarySql: `COALESCE('bet:' || (data->>'betId'), 'deposit:' || (data->>'depositId'), 'withdrawal:' || (data->>'withdrawalId'),
    'claim:' || (data->>'claimId'), 'op:' || (data->>'operationKey'))`,
  secondarySql: `CASE type WHEN 'DepositRequested' THEN 'deposit-ext:' || (data->>'providerId') || ':' || (data->>'externalId')
    ELSE 'op:' || (data->>'operationKey') END`,
  secondaryTypes: SECONDARY_TYPES,
  keysOf: itemKeysOfEvent,
};

/**
 * A wallet event found by its item's key costs the item's own events: two expression indexes over the event store's
 * table. IF NOT EXISTS: on a large ledger an operator builds them CONCURRENTLY first (docs/deployment.md).
 */
export const walletItemKeysMigrationSql = `
  CREATE INDEX IF NOT EXISTS events_item_key_idx ON events (${streamKeySql(WALLET_ITEM_KEYS.primarySql)});
  CREATE INDEX IF NOT EXISTS events_item_second_key_idx ON events (${streamKeySql(WALLET_ITEM_KEYS.secondarySql)})
    WHERE type IN (${secondaryTypesSql(WALLET_ITEM_KEYS)});
`;
