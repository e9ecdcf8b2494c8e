import type pg from 'pg';
import type { Config } from '../config.js';
import type { EventStore } from './event-store.port.js';
import { createPostgresEventStore } from './postgres/postgres.event-store.js';
import type { Logger } from './postgres/postgres.wake-up.js';

/** The configured store. NOTIFY wakes its followers at once; the poll only covers a lost notification, so it can be rare. */
export const openEventStore = async (config: Pick<Config, 'eventStore'>, deps: { pool: pg.Pool; logger: Logger }): Promise<EventStore> => {
  if (config.eventStore.kind === 'postgres')
    return createPostgresEventStore({ pool: deps.pool, logger: deps.logger, pollIntervalMs: 2_000 });
  // Loaded only when chosen, so the default setup never loads the KurrentDB client.
  const { createKurrentDbEventStore } = await import('./kurrentdb.event-store.js');
  return createKurrentDbEventStore({ connectionString: config.eventStore.connectionString });
};
