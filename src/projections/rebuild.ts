import type pg from 'pg';
import { comparePositions, START, type EventStore, type Position } from '../infra/event-store/event-store.port.js';
import type { Projection } from './projection.js';
import { startProjector, withProjectionLock, type ProjectorLogger } from './projection-runner.js';
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
  let applied = 0;
  let failed: (error: unknown) => void = () => undefined;
  const failure = new Promise<never>((_, reject) => {
    failed = reject;
  });
  failure.catch(() => undefined);
  const projector = startProjector({
    store,
    pool,
    projections,
    independent: false,
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
  return { events: applied, head };
};
