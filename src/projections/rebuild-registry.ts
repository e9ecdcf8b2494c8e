import type pg from 'pg';

/** An alive rebuild's process holds a session advisory lock; a `running` row without it is stale. Run on the live schema. */
const LOCK_CLASS = `hashtext(current_schema() || ':projection-rebuild')`;

export const lockRebuildSql = `SELECT pg_advisory_lock(${LOCK_CLASS}, hashtext($1))`;
export const tryLockRebuildSql = `SELECT pg_try_advisory_lock(${LOCK_CLASS}, hashtext($1)) AS ok`;
export const unlockRebuildSql = `SELECT pg_advisory_unlock(${LOCK_CLASS}, hashtext($1))`;
/** Serialises starting and aborting rebuilds. */
export const REGISTRY_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':projection-rebuilds'))`;

const ALIVE = `EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid = (${LOCK_CLASS})::oid AND l.objid = hashtext(r.id)::oid AND l.objsubid = 2)`;

export type RebuildRow = Readonly<{
  id: string;
  projections: string[];
  versions: number[];
  shadowSchema: string;
  position: string;
  eventsApplied: number;
  startedAt: Date;
  updatedAt: Date;
  alive: boolean;
}>;

export const runningRebuilds = async (client: pg.ClientBase | pg.Pool): Promise<RebuildRow[]> => {
  const { rows } = await client.query<{
    id: string;
    projections: string[];
    versions: number[];
    shadow_schema: string;
    position: string;
    events_applied: string;
    started_at: Date;
    updated_at: Date;
    alive: boolean;
  }>(`SELECT r.id, r.projections, r.versions, r.shadow_schema, r.position, r.events_applied, r.started_at, r.updated_at, ${ALIVE} AS alive
      FROM projection_rebuilds r WHERE r.state = 'running' ORDER BY r.started_at`);
  return rows.map((r) => ({
    id: r.id,
    projections: r.projections,
    versions: r.versions,
    shadowSchema: r.shadow_schema,
    position: r.position,
    eventsApplied: Number(r.events_applied),
    startedAt: r.started_at,
    updatedAt: r.updated_at,
    alive: r.alive,
  }));
};

export const pendingSwitches = async (client: pg.ClientBase): Promise<Map<string, number>> => {
  const { rows } = await client.query<{ name: string; version: number }>(
    `SELECT u.name, u.version FROM projection_rebuilds r CROSS JOIN LATERAL unnest(r.projections, r.versions) AS u(name, version)
     WHERE r.state = 'running' AND ${ALIVE}`,
  );
  return new Map(rows.map((r) => [r.name, r.version]));
};
