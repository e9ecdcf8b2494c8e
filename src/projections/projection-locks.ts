import type pg from 'pg';
import { withLockedTransaction } from '../infra/follow/locked-transaction.js';
import type { Projection } from './projection.js';

/** The advisory locks of the projector: one shared by every batch, one per read model, and the replay mark. */
/** Rebuilds and blue/green switches take it exclusively; every batch shares it. */
export const GLOBAL_KEY = ':projections';
export const GLOBAL_LOCK = `hashtext(current_schema() || '${GLOBAL_KEY}')`;
export const PROJECTION_LOCK_SQL = `SELECT pg_advisory_xact_lock(${GLOBAL_LOCK})`;
/** Held (session level) by a running bulk replay: while it is, the replay's own recount at its end is still to come. */
export const REPLAY_LOCK = `hashtext(current_schema() || ':projections-replay')`;

/** A read model's lock key, hashed with the schema as the global one is (here and in `projection_batch`). */
export const modelKey = (name: string): string => {
  if (!/^[\w-]+$/.test(name)) throw new Error(`projection name ${name}: letters, digits, _ and - only`);
  return `:projection:${name}`;
};
export const modelLock = (name: string): string => `pg_advisory_xact_lock(hashtext(current_schema() || '${modelKey(name)}'))`;

/** Code-unit order, the one every batch takes the read models' locks in, so batches never deadlock. */
export const byModelName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export const batchLockSql = (projections: readonly Projection[]): string =>
  `SELECT pg_advisory_xact_lock_shared(${GLOBAL_LOCK}), ${projections
    .map((p) => p.name)
    .sort(byModelName)
    .map(modelLock)
    .join(', ')}`;

/** A transaction that excludes every batch of these read models (their locks, shared with rebuilds' exclusion). */
export const withModelLocks = <T>(
  pool: pg.Pool,
  projections: readonly Projection[],
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> => withLockedTransaction(pool, batchLockSql(projections), fn);

export const withProjectionLock = <T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> =>
  withLockedTransaction(pool, PROJECTION_LOCK_SQL, fn);
