import type pg from 'pg';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { migrateEventStore } from '../../src/infra/event-store/postgres/postgres.migration.js';
import type { EventStore, Position } from '../../src/infra/event-store/event-store.port.js';
import { migrateNonCore } from '../../src/schema.js';
import type { RandomWallets } from '../unit/projections/random-wallets.js';
import { createTestDb, type TestDbOptions, type TestDb } from './db.js';

export type LedgerSchema = Readonly<{ db: TestDb; pool: pg.Pool; store: EventStore; close: () => Promise<void> }>;

/** A schema with the event store and every read model, and a PostgreSQL store on it (for projector tests). */
export const ledgerSchema = async (label: string, options: TestDbOptions = {}): Promise<LedgerSchema> => {
  const db = await createTestDb(label, options);
  const pool = db.pool();
  await migrateEventStore(pool);
  await migrateNonCore(pool);
  const store = createPostgresEventStore({ pool, pollIntervalMs: 20 });
  return {
    db,
    pool,
    store,
    close: async () => {
      await store.close();
      await db.drop();
    },
  };
};

/** Appends `count` of the wallets' next events one by one; the position of the last. */
export const appendScripted = async (store: EventStore, wallets: RandomWallets, count: number): Promise<Position> => {
  let last: Position | undefined;
  for (let i = 0; i < count; i += 1) {
    const { streamId, event } = wallets.next();
    last = (await store.append({ streamId, events: [event], expectedRevision: 'any' })).position;
  }
  return last!;
};
