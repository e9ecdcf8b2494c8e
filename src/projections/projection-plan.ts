import type pg from 'pg';
import { comparePositions, formatPosition, START, type Position } from '../infra/event-store/event-store.port.js';
import type { Projection } from './projection.js';
import { pendingSwitches } from './rebuild-registry.js';
import type { ProjectorLogger } from './projector.types.js';
import { withProjectionLock } from './projection-locks.js';
import { readCheckpoints, CheckpointBehind, type Checkpoint } from './projection-checkpoints.js';

/** What a starting projector makes of the stored checkpoints: where each read model resumes, which are retired or wait. */
/** `retired`: a newer version was switched in; `waiting`: a blue/green rebuild of this version runs, so wait, don't truncate. */
export type Plan = Readonly<{ positions: Map<string, Position>; retired: ReadonlySet<string>; waiting: ReadonlySet<string> }>;

export const prepare = (pool: pg.Pool, projections: readonly Projection[], logger: ProjectorLogger): Promise<Plan> =>
  withProjectionLock(pool, async (client) => {
    const stored = await readCheckpoints(
      client,
      projections.map((p) => p.name),
    );
    const switching = await pendingSwitches(client);
    const positions = new Map<string, Position>();
    const retired = new Set<string>();
    const waiting = new Set<string>();
    for (const p of projections) {
      const cp = stored.get(p.name);
      if (cp && cp.version > p.version) {
        logger.warn(
          { projection: p.name, stored: cp.version, mine: p.version },
          'projection: a newer version is live; this process leaves it alone',
        );
        retired.add(p.name);
        continue;
      }
      if (cp && cp.version === p.version) {
        positions.set(p.name, cp.position);
        continue;
      }
      if (switching.get(p.name) === p.version) {
        logger.info({ projection: p.name, version: p.version }, 'projection: waiting for its blue/green rebuild to switch in');
        waiting.add(p.name);
        continue;
      }
      if (p.tables.length > 0) await client.query(`TRUNCATE ${p.tables.join(', ')}`);
      await client.query(
        `INSERT INTO projection_checkpoints (name, version, position) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET version = excluded.version, position = excluded.position, updated_at = now()`,
        [p.name, p.version, formatPosition(START)],
      );
      positions.set(p.name, START);
    }
    return { positions, retired, waiting };
  });

export const minPosition = (positions: Iterable<Position>): Position => {
  let min: Position | undefined;
  for (const p of positions) if (!min || comparePositions(p, min) < 0) min = p;
  return min ?? START;
};

/** A waited-for switch happened (or its rebuild ended): restart, so prepare decides again. */
export const checkWaiting = async (
  client: pg.ClientBase,
  projections: readonly Projection[],
  plan: Plan,
  stored: Map<string, Checkpoint>,
): Promise<void> => {
  const switching = await pendingSwitches(client);
  for (const p of projections) {
    if (!plan.waiting.has(p.name)) continue;
    if (stored.get(p.name)?.version === p.version)
      throw new CheckpointBehind(`projection ${p.name}: switched in by its blue/green rebuild`);
    if (switching.get(p.name) !== p.version)
      throw new CheckpointBehind(`projection ${p.name}: its blue/green rebuild ended without a switch`);
  }
};
