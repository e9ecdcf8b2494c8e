import { isLeft } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { createLedger } from '../../src/commands/ledger.js';
import { migrateLedger } from '../../src/commands/ledger.migration.js';
import type { EventStore } from '../../src/infra/event-store/event-store.port.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { migrateEventStore } from '../../src/infra/event-store/postgres/postgres.migration.js';
import { trackAppends } from '../../src/infra/event-store/append-tracker.js';
import { createTestDb, type TestDb, type TestDbOptions } from './db.js';
import { migrateNonCore } from '../../src/schema.js';

export type LedgerEnv = Readonly<{
  db: TestDb;
  pool: pg.Pool;
  store: EventStore;
  ledger: ReturnType<typeof createLedger>;
  /** A second, independent ledger on the same database: another process, as far as the ledger can tell. */
  secondProcess: () => ReturnType<typeof createLedger> & { store: EventStore };
  close: () => Promise<void>;
}>;

/** A migrated schema on the real PostgreSQL with a real event store and ledger. */
export const createLedgerEnv = async (
  label: string,
  { ownCluster, ...options }: { clock?: () => Date } & TestDbOptions = {},
): Promise<LedgerEnv> => {
  const db = await createTestDb(label, { ownCluster });
  const pool = db.pool({ max: 12 });
  await migrateEventStore(pool);
  await migrateLedger(pool);
  await migrateNonCore(pool);
  const store = trackAppends(createPostgresEventStore({ pool, pollIntervalMs: 50 }));
  const stores: EventStore[] = [store];
  const ledger = createLedger({ store, pool, ...options });
  return {
    db,
    pool,
    store,
    ledger,
    secondProcess: () => {
      const otherPool = db.pool({ max: 6 });
      const otherStore = createPostgresEventStore({ pool: otherPool, pollIntervalMs: 50 });
      stores.push(otherStore);
      return Object.assign(createLedger({ store: otherStore, pool: otherPool, ...options }), { store: otherStore });
    },
    close: async () => {
      await Promise.all(stores.map((s) => s.close()));
      await db.drop();
    },
  };
};

/** Credits `amount` USDT to `userId` through a completed deposit (externalId `fund-<userId>`: once per wallet and schema). */
export const fundWallet = async (ledger: ReturnType<typeof createLedger>, userId: number, amount: string): Promise<void> => {
  const dep = await ledger.requestDeposit({
    externalId: `fund-${userId}`,
    userId,
    providerId: 'TEST',
    networkId: 'ETH',
    currencyId: 'USDT',
    amount,
  });
  if (isLeft(dep)) throw new Error(JSON.stringify(dep.left));
  const done = await ledger.completeDeposit(dep.right.deposit.id, {});
  if (isLeft(done)) throw new Error(JSON.stringify(done.left));
};
