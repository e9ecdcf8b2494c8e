import type pg from 'pg';
import {
  comparePositions, formatPosition, parsePosition, START,
  type EventStore, type Position, type RecordedEvent, type Subscription,
} from '../infra/event-store/event-store.port.js';
import type { Projection } from './projection.js';
import { pendingSwitches } from './rebuild-registry.js';

export type ProjectorLogger = {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
};

export type ProjectorOptions = Readonly<{
  store: EventStore;
  pool: pg.Pool;
  projections: readonly Projection[];
  batchSize?: number;
  logger?: ProjectorLogger;
  /** Backoff after a failure: first delay, doubling up to maxRetryDelayMs. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Called after each committed batch (tests, progress bars). */
  onBatch?: (info: Readonly<{ events: number; position: Position }>) => void;
  /** Called on each failure before the projector backs off and restarts. */
  onFailure?: (error: unknown) => void;
}>;

export type Projector = Readonly<{
  stop(): Promise<void>;
  /** Resolves once every projection has applied the event at `position` (read-your-writes); rejects if stopped first. */
  waitFor(position: Position): Promise<void>;
  /** Resolves when the projector has stopped. */
  done: Promise<void>;
}>;

/**
 * Serialises batch application across processes: every batch transaction takes this advisory lock
 * (released at COMMIT/ROLLBACK) and only then reads the checkpoints, so a second projector process
 * waits, then sees the first one's checkpoints and skips what is already applied. No event is applied
 * twice even with several projectors (or a rebuild) running against the same schema.
 */
export const PROJECTION_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':projections'))`;

const noopLogger: ProjectorLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const silent = (): undefined => undefined;

type Checkpoint = Readonly<{ version: number; position: Position }>;

export const readCheckpoints = async (client: pg.ClientBase): Promise<Map<string, Checkpoint>> => {
  const { rows } = await client.query<{ name: string; version: number; position: string }>('SELECT name, version, position FROM projection_checkpoints');
  return new Map(rows.map((r) => [r.name, { version: r.version, position: parsePosition(r.position) }]));
};

/** Runs `fn` in a transaction holding the projection lock; a connection that cannot even roll back is destroyed. */
export const withProjectionLock = async <T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
  const client = await pool.connect();
  let destroy = false;
  // A connection that dies while checked out emits 'error' on the client: without a listener that kills the process.
  const onConnectionError = (): void => { destroy = true; };
  client.on('error', onConnectionError);
  try {
    // Asynchronous commit is safe here: rows and checkpoint commit (or vanish in a crash) together, and
    // a lost batch is simply applied again from the durable events. It takes the WAL flush off the loop.
    await client.query('BEGIN; SET LOCAL synchronous_commit TO off');
    await client.query(PROJECTION_LOCK_SQL);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => { destroy = true; });
    throw error;
  } finally {
    client.off('error', onConnectionError);
    client.release(destroy);
  }
};

/**
 * What one run of the projector applies. `retired`: the stored checkpoint has a newer version (a blue/green
 * switch deployed it; this older process leaves it alone). `waiting`: an alive blue/green rebuild is building
 * exactly this version, so the projector waits for the switch instead of truncating the live tables.
 */
type Plan = Readonly<{ positions: Map<string, Position>; retired: ReadonlySet<string>; waiting: ReadonlySet<string> }>;

/**
 * Creates missing checkpoints at START; a projection without a checkpoint, or whose stored version is
 * older, is truncated and replayed, unless a blue/green rebuild of its version is running (it waits).
 */
const prepare = (pool: pg.Pool, projections: readonly Projection[], logger: ProjectorLogger): Promise<Plan> =>
  withProjectionLock(pool, async (client) => {
    const stored = await readCheckpoints(client);
    const switching = await pendingSwitches(client);
    const positions = new Map<string, Position>();
    const retired = new Set<string>();
    const waiting = new Set<string>();
    for (const p of projections) {
      const cp = stored.get(p.name);
      if (cp && cp.version > p.version) {
        logger.warn({ projection: p.name, stored: cp.version, mine: p.version }, 'projection: a newer version is live; this process leaves it alone');
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
      // No checkpoint (or another version) means "replay from zero": start from empty tables.
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

const minPosition = (positions: Iterable<Position>): Position => {
  let min: Position | undefined;
  for (const p of positions) if (!min || comparePositions(p, min) < 0) min = p;
  return min ?? START;
};

/** The subscription started after `from`, but a checkpoint is behind it (a rebuild reset it): restart. */
class CheckpointBehind extends Error {
  override readonly name = 'CheckpointBehind';
}

/** A waited-for switch happened (or its rebuild ended without one): restart, so that prepare decides again. */
const checkWaiting = async (client: pg.ClientBase, projections: readonly Projection[], plan: Plan, stored: Map<string, Checkpoint>): Promise<void> => {
  const switching = await pendingSwitches(client);
  for (const p of projections) {
    if (!plan.waiting.has(p.name)) continue;
    if (stored.get(p.name)?.version === p.version) throw new CheckpointBehind(`projection ${p.name}: switched in by its blue/green rebuild`);
    if (switching.get(p.name) !== p.version) throw new CheckpointBehind(`projection ${p.name}: its blue/green rebuild ended without a switch`);
  }
};

/**
 * Applies one batch: under the lock, re-reads the checkpoints and, for each projection, runs its
 * statements for the events after its own checkpoint, then moves every checkpoint to the batch's end,
 * all in one transaction. Returns the new checkpoints.
 */
const applyBatch = (pool: pg.Pool, projections: readonly Projection[], plan: Plan, from: Position, events: readonly RecordedEvent[]) =>
  withProjectionLock(pool, async (client) => {
    const stored = await readCheckpoints(client);
    if (plan.waiting.size > 0) await checkWaiting(client, projections, plan, stored);
    const last = events.at(-1)!.position;
    const positions = new Map<string, Position>();
    const names: string[] = [];
    const versions: number[] = [];
    for (const p of projections) {
      if (plan.retired.has(p.name) || plan.waiting.has(p.name)) continue;
      const cp = stored.get(p.name);
      if (!cp || cp.version !== p.version) throw new CheckpointBehind(`projection ${p.name}: checkpoint missing or of another version`);
      if (comparePositions(cp.position, from) < 0) throw new CheckpointBehind(`projection ${p.name}: checkpoint ${formatPosition(cp.position)} is behind ${formatPosition(from)}`);
      if (comparePositions(cp.position, last) >= 0) {
        positions.set(p.name, cp.position);
        continue;
      }
      const mine = events.filter((e) => comparePositions(e.position, cp.position) > 0 && p.handles.includes(e.type));
      if (mine.length > 0) for (const s of p.project(mine)) await client.query(s.text, s.values);
      names.push(p.name);
      versions.push(p.version);
      positions.set(p.name, last);
    }
    if (names.length > 0) {
      await client.query(
        `UPDATE projection_checkpoints AS c SET position = $3, updated_at = now()
         FROM unnest($1::text[], $2::int[]) AS u(name, version) WHERE c.name = u.name AND c.version = u.version`,
        [names, versions, formatPosition(last)],
      );
    }
    return positions;
  });

/**
 * One catch-up subscription from the lowest checkpoint of `projections`; each batch is applied with
 * its checkpoints in one transaction (see applyBatch), so a crash at any point neither loses nor
 * double-applies an event. On any failure: log, back off, and restart from the stored checkpoints.
 */
export const startProjector = (options: ProjectorOptions): Projector => {
  const { store, pool, projections, batchSize = 2000, logger = noopLogger } = options;
  const firstDelay = options.retryDelayMs ?? 100;
  const maxDelay = options.maxRetryDelayMs ?? 5_000;
  const stopping = new AbortController();
  let applied: Position | undefined;
  let delay = firstDelay;
  let subscription: Subscription | undefined;
  const waiters = new Set<{ position: Position; resolve: () => void; reject: (e: Error) => void }>();

  const advance = (positions: Map<string, Position>): void => {
    applied = minPosition(positions.values());
    for (const w of waiters) {
      if (comparePositions(applied, w.position) >= 0) {
        waiters.delete(w);
        w.resolve();
      }
    }
  };

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const onAbort = (): void => { clearTimeout(timer); resolve(); };
      const timer = setTimeout(() => { stopping.signal.removeEventListener('abort', onAbort); resolve(); }, ms);
      stopping.signal.addEventListener('abort', onAbort, { once: true });
    });

  const runOnce = async (): Promise<void> => {
    const plan = await prepare(pool, projections, logger);
    const start = plan.positions;
    advance(start);
    // Nothing to apply (every projection retired or waiting): follow from the head, only to notice a switch.
    let from = start.size > 0 ? minPosition(start.values()) : await store.headPosition();
    logger.info({ from: formatPosition(from), projections: projections.map((p) => p.name) }, 'projector subscribing');
    subscription = store.subscribe({
      after: from,
      batchSize,
      signal: stopping.signal,
      onError: silent,
      onEvents: async (events) => {
        if (events.length === 0) return;
        const positions = await applyBatch(pool, projections, plan, from, events);
        from = events.at(-1)!.position;
        advance(positions);
        delay = firstDelay;
        options.onBatch?.({ events: events.length, position: from });
      },
    });
    await subscription.done;
  };

  const loop = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      try {
        await runOnce();
      } catch (error) {
        if (stopping.signal.aborted) break;
        options.onFailure?.(error);
        // CheckpointBehind is a planned restart (a rebuild or a blue/green switch moved a checkpoint), not a fault.
        logger[error instanceof CheckpointBehind ? 'warn' : 'error']({ err: error, retryInMs: delay }, 'projector restarting from the stored checkpoints');
        await sleep(delay);
        delay = Math.min(delay * 2, maxDelay);
      }
    }
    for (const w of waiters) w.reject(new Error('projector stopped'));
    waiters.clear();
  };

  const done = loop();
  return {
    done,
    stop: async () => {
      stopping.abort();
      await subscription?.stop();
      await done;
    },
    waitFor: (position) => {
      if (applied && comparePositions(applied, position) >= 0) return Promise.resolve();
      if (stopping.signal.aborted) return Promise.reject(new Error('projector stopped'));
      return new Promise((resolve, reject) => waiters.add({ position, resolve, reject }));
    },
  };
};
