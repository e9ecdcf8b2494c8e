import type pg from 'pg';
import { HttpError } from './http-errors.js';
import type { AuthKit } from '../auth/auth-kit.js';
import type { Ledger } from '../commands/ledger.types.js';
import type { EventStore } from '../infra/event-store/event-store.port.js';
import type { AccessRegistry } from './access.js';
import type { ConsistentReads } from './ledger-position.js';

/** What every back-office router gets: declare each route with guardedRoutes(router, auth.authenticator, registry). */
export type BackOfficeDeps = Readonly<{
  pool: pg.Pool;
  store: EventStore;
  ledger: Ledger;
  auth: AuthKit;
  registry: AccessRegistry;
  /** Consistent reads (read-your-writes); unset: reads answer at once. */
  reads?: ConsistentReads;
}>;

/** The user id, when that user exists; 404 USER_NOT_FOUND otherwise. */
export const existingUser = async (deps: Pick<BackOfficeDeps, 'auth'>, userId: number): Promise<number> => {
  if (!(await deps.auth.users.exists(userId))) throw new HttpError(404, 'USER_NOT_FOUND', `User ${userId} not found`);
  return userId;
};
