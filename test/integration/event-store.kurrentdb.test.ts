import { describe } from 'vitest';
import { createKurrentDbEventStore } from '../../src/infra/event-store/kurrentdb.event-store.js';
import { eventStoreContract } from './event-store.contract.js';

const connectionString = process.env.EVENTSTORE_CONNECTION_STRING;

// No KurrentDB server runs on the development machines: this suite runs where one is configured (docker-compose, CI).
describe.skipIf(!connectionString)('kurrentdb event store', () => {
  eventStoreContract(
    'kurrentdb',
    async () => {
      const store = createKurrentDbEventStore({ connectionString: connectionString! });
      return { store, cleanup: () => store.close() };
    },
    { uniqueEventIds: false },
  );
});
