import type pg from 'pg';
import type { AuthKit } from '../auth/auth-kit.js';
import type { Ledger } from '../commands/ledger.types.js';
import type { EventStore } from '../infra/event-store/event-store.port.js';
import type { AccessRegistry } from './access.js';

/** What every back-office router gets: declare each route with guardedRoutes(router, auth.authenticator, registry). */
export type BackOfficeDeps = Readonly<{
  pool: pg.Pool;
  store: EventStore;
  ledger: Ledger;
  auth: AuthKit;
  registry: AccessRegistry;
}>;
