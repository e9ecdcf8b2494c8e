import type pg from 'pg';
import {
  comparePositions,
  formatPosition,
  parsePosition,
  START,
  type EventStore,
  type Position,
} from '../infra/event-store/event-store.port.js';
import type { Projection } from './projection.js';
import { readCheckpoints } from './projection-checkpoints.js';
import { runningRebuilds } from './rebuild-registry.js';
import type { ProjectionReading } from '../infra/metrics.js';

export type Lag = Readonly<{
  /** At most the cap; `capped` when there are more. */
  events: number;
  capped: boolean;
  /** Age of the oldest event not yet applied (0 when none waits). */
  seconds: number;
}>;

export type ProjectionStatus = Readonly<{
  name: string;
  version: number;
  /** From the checkpoint; null before the first run. */
  storedVersion: number | null;
  position: Position | null;
  head: Position;
  lag: Lag;
  rebuild: Readonly<{
    id: string;
    alive: boolean;
    version: number;
    position: Position;
    eventsApplied: number;
    startedAt: Date;
    lag: Lag;
  }> | null;
}>;

export type StatusOptions = Readonly<{
  pool: pg.Pool;
  store: EventStore;
  projections: readonly Projection[];
  /** Keeps a status call cheap when a projection is far behind. */
  lagCap?: number;
  now?: () => Date;
}>;

/** The PostgreSQL adapter's "visible" rule (see postgres.reads.ts): positions only count once readable. */
const COUNT_AFTER_SQL = `
  SELECT count(*)::int AS n FROM (
    SELECT 1 FROM events WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
      AND transaction_id < pg_snapshot_xmin(pg_current_snapshot()) LIMIT $3) AS s`;

const countAfter = async (o: StatusOptions, after: Position, cap: number): Promise<number> => {
  if (o.store.kind === 'postgres') {
    const params = after.commit < 0n ? ['0', '-1'] : [after.commit.toString(), after.prepare.toString()];
    return (await o.pool.query<{ n: number }>(COUNT_AFTER_SQL, [...params, cap + 1])).rows[0]!.n;
  }
  return (await o.store.readAll({ after, maxCount: cap + 1 })).length;
};

const lagAfter = async (o: StatusOptions, after: Position, head: Position, cap: number): Promise<Lag> => {
  if (comparePositions(after, head) >= 0) return { events: 0, capped: false, seconds: 0 };
  const [count, [oldest]] = await Promise.all([countAfter(o, after, cap), o.store.readAll({ after, maxCount: 1 })]);
  const now = (o.now ?? (() => new Date()))();
  const seconds = oldest ? Math.max(0, (now.getTime() - oldest.createdAt.getTime()) / 1000) : 0;
  return { events: Math.min(count, cap), capped: count > cap, seconds };
};

/** Positions shared by several projections are measured once. */
export const projectionStatus = async (o: StatusOptions): Promise<ProjectionStatus[]> => {
  const cap = o.lagCap ?? 100_000;
  const client = await o.pool.connect();
  let checkpoints: Awaited<ReturnType<typeof readCheckpoints>>;
  let rebuilds: Awaited<ReturnType<typeof runningRebuilds>>;
  try {
    checkpoints = await readCheckpoints(client);
    rebuilds = await runningRebuilds(client);
  } finally {
    client.release();
  }
  const head = await o.store.headPosition();
  const lags = new Map<string, Promise<Lag>>();
  const lagOf = (p: Position): Promise<Lag> => {
    const key = formatPosition(p);
    let lag = lags.get(key);
    if (!lag) lags.set(key, (lag = lagAfter(o, p, head, cap)));
    return lag;
  };
  return Promise.all(
    o.projections.map(async (p): Promise<ProjectionStatus> => {
      const cp = checkpoints.get(p.name);
      const r = rebuilds.find((x) => x.projections.includes(p.name));
      const rebuildPosition = r ? parsePosition(r.position) : undefined;
      return {
        name: p.name,
        version: p.version,
        storedVersion: cp?.version ?? null,
        position: cp?.position ?? null,
        head,
        lag: await lagOf(cp?.position ?? START),
        rebuild:
          r && rebuildPosition
            ? {
                id: r.id,
                alive: r.alive,
                version: r.versions[r.projections.indexOf(p.name)]!,
                position: rebuildPosition,
                eventsApplied: r.eventsApplied,
                startedAt: r.startedAt,
                lag: await lagOf(rebuildPosition),
              }
            : null,
      };
    }),
  );
};

export const projectionReadings = async (o: StatusOptions): Promise<ProjectionReading[]> =>
  (await projectionStatus(o)).map((s) => ({
    projection: s.name,
    position: s.position ? Math.max(0, Number(s.position.prepare)) : 0,
    lagEvents: s.lag.events,
    lagSeconds: s.lag.seconds,
    rebuilding: s.rebuild?.alive ?? false,
  }));
