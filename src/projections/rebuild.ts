import pg from 'pg';
import { comparePositions, START, type EventStore, type Position } from '../infra/event-store/event-store.port.js';
import type { Projection } from './projection.js';
import { rederive } from './projection-checkpoints.js';
import { REPLAY_LOCK, withModelLocks, withProjectionLock } from './projection-locks.js';
import { startProjector, type ProjectorLogger } from './projection-runner.js';
import { pendingSwitches } from './rebuild-registry.js';

export type RebuildOptions = Readonly<{
  store: EventStore;
  pool: pg.Pool;
  projections: readonly Projection[];
  batchSize?: number;
  logger?: ProjectorLogger;
  onProgress?: (progress: Readonly<{ applied: number; position: Position; head: Position }>) => void;
}>;

export type RebuildResult = Readonly<{ events: number; head: Position }>;

/** Under the projection lock, so a running projector notices the reset and restarts; fails on the first error. */
export const rebuildProjections = async (options: RebuildOptions): Promise<RebuildResult> => {
  const { store, pool, projections } = options;
  await withProjectionLock(pool, async (client) => {
    // Truncating under a running blue/green rebuild would make projectors wait for its switch with empty tables.
    const switching = await pendingSwitches(client);
    const busy = projections.filter((p) => switching.has(p.name)).map((p) => p.name);
    if (busy.length > 0) throw new Error(`a blue/green rebuild of ${busy.join(', ')} is running: let it finish or abort it first`);
    const tables = projections.flatMap((p) => p.tables);
    if (tables.length > 0) await client.query(`TRUNCATE ${tables.join(', ')}`);
    await client.query('DELETE FROM projection_checkpoints WHERE name = ANY($1::text[])', [projections.map((p) => p.name)]);
  });
  const head = await store.headPosition();
  if (comparePositions(head, START) <= 0) return { events: 0, head };
  // Held until the counts are recounted, on a connection of its own (not one of the pool's, which the replay needs): a
  // projector that finds a replay's mark while it is held leaves the counts to us; if this process dies, the lock goes too.
  const holder = new pg.Client(pool.options);
  holder.on('error', () => undefined);
  await holder.connect();
  try {
    await holder.query(`SELECT pg_advisory_lock(${REPLAY_LOCK})`);
    return await replay(options, head);
  } finally {
    await holder.end().catch(() => undefined);
  }
};

const replay = async (options: RebuildOptions, head: Position): Promise<RebuildResult> => {
  const { store, pool, projections } = options;
  let failed: (error: unknown) => void = () => undefined;
  const failure = new Promise<never>((_, reject) => {
    failed = reject;
  });
  failure.catch(() => undefined);
  let applied = 0;
  // Its read groups' batches run in parallel transactions (as many as the pool allows it, 3 by default).
  const projector = startProjector({
    store,
    pool,
    projections,
    independent: false,
    replay: true,
    batchSize: options.batchSize ?? 1000,
    logger: options.logger,
    onFailure: (error) => failed(error),
    onBatch: ({ events, position }) => {
      applied += events;
      options.onProgress?.({ applied, position, head });
    },
  });
  try {
    await Promise.race([projector.waitFor(head), failure]);
  } finally {
    await projector.stop();
  }
  const rederived = projections.filter((p) => p.rederive && p.rederive.length > 0);
  if (rederived.length > 0) {
    await withModelLocks(pool, rederived, async (client) => {
      for (const p of rederived) await rederive(client, p);
    });
  }
  return { events: applied, head };
};
