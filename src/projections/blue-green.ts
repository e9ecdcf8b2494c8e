import { createPersonKeys } from '../erasure/person-keys.js';
import { withPersonalData } from '../erasure/personal-store.js';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import {
  formatPosition,
  parsePosition,
  START,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../infra/event-store/event-store.port.js';
import type { Projection } from './projection.js';
import { PROJECTION_LOCK_SQL } from './projection-locks.js';
import type { ProjectorLogger } from './projector.types.js';
import { PROJECTION_READS } from './projection-reads.js';

export { PROJECTION_READS } from './projection-reads.js';
import { lockRebuildSql, REGISTRY_LOCK_SQL, runningRebuilds, unlockRebuildSql } from './rebuild-registry.js';

/** `ddl`: this version's table changes (unqualified names), run on the shadow copies; fresh databases get them by migration. */
export type BlueGreenProjection = Projection & Readonly<{ ddl?: readonly string[] }>;

/** `names` plus everything they read (transitively), in application order. */
export const withDependencies = <P extends Projection>(names: readonly string[], all: readonly P[]): P[] => {
  const wanted = new Set<string>();
  const visit = (name: string): void => {
    if (wanted.has(name)) return;
    if (!all.some((p) => p.name === name)) throw new Error(`unknown projection: ${name} (known: ${all.map((p) => p.name).join(', ')})`);
    wanted.add(name);
    for (const d of PROJECTION_READS[name] ?? []) visit(d);
  };
  for (const n of names) visit(n);
  return all.filter((p) => wanted.has(p.name));
};

export type BlueGreenOptions = Readonly<{
  store: EventStore;
  pool: pg.Pool;
  projections: readonly BlueGreenProjection[];
  batchSize?: number;
  logger?: ProjectorLogger;
  /** How long the switch waits for queries on the live tables before backing off and retrying. */
  switchLockTimeoutMs?: number;
  switchAttempts?: number;
  /** Continue (default) a dead process's rebuild of the same projections and versions instead of restarting. */
  resume?: boolean;
  onProgress?: (progress: Readonly<{ applied: number; position: Position; head: Position }>) => void;
  beforeSwitch?: () => Promise<void>;
}>;

export type BlueGreenResult = Readonly<{
  id: string;
  events: number;
  position: Position;
  /** Events applied inside the switch transaction, while the live projector waited. */
  tail: number;
  switchAttempts: number;
  switchMs: number;
  resumed: boolean;
}>;

export class RebuildInProgress extends Error {
  override readonly name = 'RebuildInProgress';
  constructor(
    readonly id: string,
    readonly projections: readonly string[],
  ) {
    super(`a blue/green rebuild (${id}) of ${projections.join(', ')} is already running`);
  }
}

export class RebuildAborted extends Error {
  override readonly name = 'RebuildAborted';
  constructor(readonly id: string) {
    super(`blue/green rebuild ${id} was aborted`);
  }
}

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const pathSql = (schemas: readonly string[]): string => schemas.map(ident).join(', ');
const noopLogger: ProjectorLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Live = Readonly<{ schema: string; path: readonly string[] }>;
type Registration = Readonly<{ id: string; shadow: string; position: Position; eventsApplied: number; resumed: boolean }>;

const liveOf = async (pool: pg.Pool): Promise<Live> => {
  const { rows } = await pool.query<{ schema: string; path: string[] }>(
    'SELECT current_schema() AS schema, current_schemas(false)::text[] AS path',
  );
  return { schema: rows[0]!.schema, path: rows[0]!.path };
};

/** A copy lacks foreign keys, triggers and owned sequences, so such live tables cannot be replaced. */
const REPLACEABLE_SQL = `
  SELECT c.relname AS name,
    EXISTS (SELECT 1 FROM pg_constraint k WHERE (k.confrelid = c.oid OR k.conrelid = c.oid) AND k.contype = 'f') AS foreign_keys,
    EXISTS (SELECT 1 FROM pg_depend d JOIN pg_rewrite w ON w.oid = d.objid
            WHERE d.classid = 'pg_rewrite'::regclass AND d.refobjid = c.oid AND w.ev_class <> c.oid) AS views,
    EXISTS (SELECT 1 FROM pg_depend d JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
            WHERE d.refobjid = c.oid AND d.deptype IN ('a', 'i')) AS sequences,
    EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = c.oid AND NOT g.tgisinternal) AS triggers
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = $1 AND c.relname = ANY($2::text[]) AND c.relkind = 'r'`;

const checkReplaceable = async (client: pg.ClientBase, schema: string, tables: readonly string[]): Promise<void> => {
  const { rows } = await client.query<{ name: string; foreign_keys: boolean; views: boolean; sequences: boolean; triggers: boolean }>(
    REPLACEABLE_SQL,
    [schema, tables],
  );
  const problems = tables.filter((t) => !rows.some((r) => r.name === t)).map((t) => `${t}: no such table in schema ${schema}`);
  for (const r of rows) {
    for (const k of ['foreign_keys', 'views', 'sequences', 'triggers'] as const)
      if (r[k]) problems.push(`${r.name}: has ${k.replace('_', ' ')}`);
  }
  if (problems.length > 0) throw new Error(`cannot rebuild blue/green: ${problems.join('; ')}`);
};

const dropShadow = (client: pg.ClientBase | pg.Pool, shadow: string): Promise<unknown> =>
  client.query(`DROP SCHEMA IF EXISTS ${ident(shadow)} CASCADE`);

/** A stale rebuild of the same projections and versions is resumed; any other overlapping stale one is aborted. */
const register = async (
  holder: pg.PoolClient,
  live: Live,
  projections: readonly BlueGreenProjection[],
  resume: boolean,
  logger: ProjectorLogger,
): Promise<Registration> => {
  const names = projections.map((p) => p.name);
  const versions = projections.map((p) => p.version);
  const tables = projections.flatMap((p) => p.tables);
  let locked: string | undefined;
  try {
    await holder.query('BEGIN');
    await holder.query(REGISTRY_LOCK_SQL);
    let registration: Registration | undefined;
    for (const r of await runningRebuilds(holder)) {
      if (!r.projections.some((n) => names.includes(n))) continue;
      if (r.alive) throw new RebuildInProgress(r.id, r.projections);
      const same = JSON.stringify([r.projections, r.versions]) === JSON.stringify([names, versions]);
      const exists = (await holder.query<{ ok: boolean }>('SELECT to_regnamespace($1) IS NOT NULL AS ok', [r.shadowSchema])).rows[0]!.ok;
      if (resume && same && exists && !registration) {
        registration = {
          id: r.id,
          shadow: r.shadowSchema,
          position: parsePosition(r.position),
          eventsApplied: r.eventsApplied,
          resumed: true,
        };
        logger.info({ rebuild: r.id, position: r.position }, 'blue/green: resuming a rebuild whose process died');
        continue;
      }
      logger.warn({ rebuild: r.id, projections: r.projections }, 'blue/green: aborting a stale rebuild');
      await holder.query(
        `UPDATE projection_rebuilds SET state = 'aborted', error = 'stale: replaced by a new rebuild',
           finished_at = now(), updated_at = now() WHERE id = $1`,
        [r.id],
      );
      await dropShadow(holder, r.shadowSchema);
    }
    if (!registration) {
      await checkReplaceable(holder, live.schema, tables);
      const id = randomBytes(6).toString('hex');
      const shadow = `prb_${id}`;
      await holder.query(`CREATE SCHEMA ${ident(shadow)}`);
      for (const t of tables)
        await holder.query(`CREATE TABLE ${ident(shadow)}.${ident(t)} (LIKE ${ident(live.schema)}.${ident(t)} INCLUDING ALL)`);
      const ddl = projections.flatMap((p) => p.ddl ?? []);
      if (ddl.length > 0) {
        await holder.query(`SET LOCAL search_path TO ${pathSql([shadow, ...live.path])}`);
        for (const statement of ddl) await holder.query(statement);
        await holder.query(`SET LOCAL search_path TO ${pathSql(live.path)}`);
      }
      await holder.query(
        `INSERT INTO projection_rebuilds (id, projections, versions, shadow_schema, state, position)
         VALUES ($1, $2, $3, $4, 'running', $5)`,
        [id, names, versions, shadow, formatPosition(START)],
      );
      registration = { id, shadow, position: START, eventsApplied: 0, resumed: false };
    }
    // Session level: held after COMMIT until released or the connection ends (then the rebuild is stale).
    await holder.query(lockRebuildSql, [registration.id]);
    locked = registration.id;
    await holder.query('COMMIT');
    return registration;
  } catch (error) {
    await holder.query('ROLLBACK').catch(() => undefined);
    if (locked) await holder.query(unlockRebuildSql, [locked]).catch(() => undefined);
    throw error;
  }
};

/** Applies to whatever tables search_path resolves first (the shadow ones here). */
const applyEvents = async (client: pg.ClientBase, projections: readonly Projection[], events: readonly RecordedEvent[]): Promise<void> => {
  for (const p of projections) {
    const mine = events.filter((e) => p.handles.includes(e.type));
    if (mine.length > 0) for (const s of p.project(mine)) await client.query(s.text, s.values);
  }
};

type IndexRow = { table_name: string; index_name: string; def: string };
/** Without name and table, so a live index and its copy compare equal. */
const INDEXES_SQL = `
  SELECT t.relname AS table_name, i.relname AS index_name,
    regexp_replace(pg_get_indexdef(i.oid), '^CREATE (UNIQUE )?INDEX \\S+ ON (ONLY )?\\S+ ', '\\1') AS def
  FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
  JOIN pg_namespace n ON n.oid = t.relnamespace
  WHERE n.nspname = $1 AND t.relname = ANY($2::text[]) ORDER BY t.relname, i.relname`;

/** LIKE names copies' indexes after their columns; rename them so later migrations find the names they expect. */
const indexRenames = async (
  client: pg.ClientBase,
  live: string,
  shadow: string,
  tables: readonly string[],
): Promise<[string, string][]> => {
  const [old, copies] = await Promise.all([live, shadow].map(async (s) => (await client.query<IndexRow>(INDEXES_SQL, [s, tables])).rows));
  const free = [...copies!];
  const pairs: [string, string][] = [];
  for (const o of old!) {
    const i = free.findIndex((c) => c.table_name === o.table_name && c.def === o.def);
    if (i < 0) continue; // the new version dropped or changed it
    const [copy] = free.splice(i, 1);
    if (copy!.index_name !== o.index_name) pairs.push([copy!.index_name, o.index_name]);
  }
  return pairs;
};

const isLockTimeout = (error: unknown): boolean => (error as { code?: string }).code === '55P03';

/** Replays into shadow copies while live tables serve, then swaps them in one transaction under the projection lock. */
export const rebuildBlueGreen = async (options: BlueGreenOptions): Promise<BlueGreenResult> => {
  const { pool, projections, logger = noopLogger } = options;
  // A rebuild reads personal fields as the projector does: decrypted, or erased once the key is gone.
  const store = withPersonalData(options.store, createPersonKeys(pool));
  const batchSize = options.batchSize ?? 2000;
  const maxTail = batchSize * 5;
  if (projections.length === 0) throw new Error('nothing to rebuild');
  const names = projections.map((p) => p.name);
  const missing = names.flatMap((n) => (PROJECTION_READS[n] ?? []).filter((d) => !names.includes(d)));
  if (missing.length > 0) throw new Error(`rebuild ${missing.join(', ')} in the same shadow: ${names.join(', ')} read their tables`);
  const tables = projections.flatMap((p) => p.tables);

  const live = await liveOf(pool);
  const holder = await pool.connect();
  let broken = false;
  const onHolderError = (): void => {
    broken = true;
  };
  holder.on('error', onHolderError);
  let reg: Registration | undefined;
  try {
    reg = await register(holder, live, projections, options.resume ?? true, logger);
    const { id, shadow } = reg;
    const shadowPath = pathSql([shadow, ...live.path]);
    const rebuilds = `${ident(live.schema)}.projection_rebuilds`;
    const head = await store.headPosition();
    let position = reg.position;
    let applied = reg.eventsApplied;
    logger.info(
      { rebuild: id, projections: names, shadow, from: formatPosition(position), head: formatPosition(head) },
      'blue/green: replaying into the shadow tables',
    );

    const catchUp = async (): Promise<void> => {
      for (;;) {
        const events = await store.readAll({ after: position, maxCount: batchSize });
        if (events.length === 0) return;
        const last = events.at(-1)!.position;
        const client = await pool.connect();
        try {
          await client.query(`BEGIN; SET LOCAL synchronous_commit TO off; SET LOCAL search_path TO ${shadowPath}`);
          await applyEvents(client, projections, events);
          const marked = await client.query(
            `UPDATE ${rebuilds} SET position = $2, events_applied = events_applied + $3, updated_at = now()
             WHERE id = $1 AND state = 'running'`,
            [id, formatPosition(last), events.length],
          );
          if (marked.rowCount !== 1) throw new RebuildAborted(id);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        } finally {
          client.release();
        }
        position = last;
        applied += events.length;
        options.onProgress?.({ applied, position, head });
        if (events.length < batchSize) return;
      }
    };

    const switchOnce = async (): Promise<{ tail: number; ms: number } | undefined> => {
      const client = await pool.connect();
      const started = Date.now();
      try {
        await client.query('BEGIN');
        await client.query(PROJECTION_LOCK_SQL);
        // Read the tail before this transaction writes: an xid of ours would hold back what the store shows.
        const tail: RecordedEvent[] = [];
        let at = position;
        for (;;) {
          const events = await store.readAll({ after: at, maxCount: batchSize });
          tail.push(...events);
          if (events.length > 0) at = events.at(-1)!.position;
          if (events.length < batchSize) break;
          if (tail.length >= maxTail) {
            await client.query('ROLLBACK');
            return undefined; // appends outran us: catch up outside the lock first
          }
        }
        await client.query(`SET LOCAL search_path TO ${shadowPath}`);
        await applyEvents(client, projections, tail);
        await client.query(`SET LOCAL search_path TO ${pathSql(live.path)}`);
        await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(options.switchLockTimeoutMs ?? 2_000))}`);
        const liveTables = tables.map((t) => `${ident(live.schema)}.${ident(t)}`).join(', ');
        if (tables.length > 0) {
          await client.query(`LOCK TABLE ${liveTables} IN ACCESS EXCLUSIVE MODE`);
          const renames = await indexRenames(client, live.schema, shadow, tables);
          await client.query(`DROP TABLE ${liveTables}`);
          for (const t of tables) await client.query(`ALTER TABLE ${ident(shadow)}.${ident(t)} SET SCHEMA ${ident(live.schema)}`);
          // Through temporary names, so no rename collides with an index still waiting for its own.
          for (const [i, [from]] of renames.entries())
            await client.query(`ALTER INDEX ${ident(live.schema)}.${ident(from)} RENAME TO ${ident(`${shadow}_${i}`)}`);
          for (const [i, [, to]] of renames.entries())
            await client.query(`ALTER INDEX ${ident(live.schema)}.${ident(`${shadow}_${i}`)} RENAME TO ${ident(to)}`);
        }
        await client.query(
          `INSERT INTO ${ident(live.schema)}.projection_checkpoints (name, version, position)
           SELECT u.name, u.version, $3 FROM unnest($1::text[], $2::int[]) AS u(name, version)
           ON CONFLICT (name) DO UPDATE SET version = excluded.version, position = excluded.position, updated_at = now()`,
          [names, projections.map((p) => p.version), formatPosition(at)],
        );
        const marked = await client.query(
          `UPDATE ${rebuilds} SET state = 'switched', position = $2, events_applied = events_applied + $3,
             finished_at = now(), updated_at = now()
           WHERE id = $1 AND state = 'running'`,
          [id, formatPosition(at), tail.length],
        );
        if (marked.rowCount !== 1) throw new RebuildAborted(id);
        await client.query(`DROP SCHEMA ${ident(shadow)}`);
        await client.query('COMMIT');
        position = at;
        applied += tail.length;
        return { tail: tail.length, ms: Date.now() - started };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (isLockTimeout(error)) return undefined;
        throw error;
      } finally {
        client.release();
      }
    };

    await catchUp();
    for (const t of tables) await pool.query(`ANALYZE ${ident(shadow)}.${ident(t)}`);
    await options.beforeSwitch?.();
    const attempts = options.switchAttempts ?? 10;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      await catchUp();
      const switched = await switchOnce();
      if (switched) {
        logger.info(
          { rebuild: id, projections: names, events: applied, tail: switched.tail, switchMs: switched.ms, attempt },
          'blue/green: switched',
        );
        return { id, events: applied, position, tail: switched.tail, switchAttempts: attempt, switchMs: switched.ms, resumed: reg.resumed };
      }
      logger.warn({ rebuild: id, attempt }, 'blue/green: the live tables stayed busy (or the tail grew); retrying the switch');
      await sleep(Math.min(200 * attempt, 2_000));
    }
    throw new Error(`blue/green rebuild ${id}: could not switch after ${attempts} attempts (long queries on ${tables.join(', ')}?)`);
  } catch (error) {
    if (reg) {
      const message = (error as Error).message.slice(0, 1_000);
      await pool
        .query(
          `UPDATE projection_rebuilds SET state = 'failed', error = $2, finished_at = now(), updated_at = now()
           WHERE id = $1 AND state = 'running'`,
          [reg.id, message],
        )
        .catch(() => undefined);
      await dropShadow(pool, reg.shadow).catch(() => undefined);
    }
    throw error;
  } finally {
    if (reg && !broken)
      await holder.query(unlockRebuildSql, [reg.id]).catch(() => {
        broken = true;
      });
    holder.off('error', onHolderError);
    holder.release(broken);
  }
};

export type AbortOutcome = 'aborted' | 'signalled' | 'not-running';

/** A live rebuild's process notices at its next batch and drops its own shadow schema. */
export const abortRebuild = async (pool: pg.Pool, id: string): Promise<AbortOutcome> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(REGISTRY_LOCK_SQL);
    const row = (await runningRebuilds(client)).find((r) => r.id === id);
    if (!row) {
      await client.query('ROLLBACK');
      return 'not-running';
    }
    await client.query(
      `UPDATE projection_rebuilds SET state = 'aborted', error = 'aborted by an operator', finished_at = now(), updated_at = now()
       WHERE id = $1`,
      [id],
    );
    if (!row.alive) await dropShadow(client, row.shadowSchema);
    await client.query('COMMIT');
    return row.alive ? 'signalled' : 'aborted';
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};
