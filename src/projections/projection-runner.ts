import type pg from 'pg';
import {
  comparePositions,
  formatPosition,
  parsePosition,
  START,
  type EventStore,
  type Position,
  type RecordedEvent,
  type Subscription,
} from '../infra/event-store/event-store.port.js';
import { startFollowLoop, type FollowLoop } from '../infra/follow/follow-loop.js';
import { withLockedTransaction } from '../infra/follow/locked-transaction.js';
import { shareSubscriptions } from '../infra/follow/shared-subscriptions.js';
import { createWakeSignal, type WakeSignal } from '../infra/follow/wake-signal.js';
import type { Projection, Sql } from './projection.js';
import { applyCheckedBatch, applyStatements } from './apply-statements.js';
import { readGroups } from './projection-reads.js';
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
  /** Default true: each read model has its own lock and checkpoint, so a slow one never holds back the others. */
  independent?: boolean;
  batchSize?: number;
  /** A bulk replay from zero: statements marked `derived` are skipped; the caller runs each projection's `rederive` after. */
  replay?: boolean;
  /** Default 3: each batch holds a pool connection, and a rebuild's switch (or the API) must still get one. */
  maxConcurrentBatches?: number;
  logger?: ProjectorLogger;
  /** Backoff after a failure: first delay, doubling up to maxRetryDelayMs. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  onBatch?: (info: Readonly<{ events: number; position: Position }>) => void;
  onFailure?: (error: unknown) => void;
  /** Default 100: new events are taken at most this often, sooner once a batch's worth is waiting; a waiting reader wakes `hurry`. */
  coalesceMs?: number;
  hurry?: WakeSignal;
}>;

/** What applying a read model has cost so far in this process: time in its statements, events handed to it. */
export type ProjectionCost = Readonly<{ name: string; events: number; statements: number; ms: number }>;

export type Projector = Readonly<{
  stop(): Promise<void>;
  /** Read-your-writes: resolves once every projection has applied `position`; rejects if stopped first. */
  waitFor(position: Position): Promise<void>;
  /** Undefined before this process started it. */
  progress(name: string): Position | undefined;
  waitForModels(names: readonly string[], position: Position): Promise<void>;
  hurry(): void;
  follows(name: string): boolean;
  costs(): ProjectionCost[];
  done: Promise<void>;
}>;

/** Rebuilds and blue/green switches take it exclusively; every batch shares it. */
const GLOBAL_KEY = ':projections';
const GLOBAL_LOCK = `hashtext(current_schema() || '${GLOBAL_KEY}')`;
export const PROJECTION_LOCK_SQL = `SELECT pg_advisory_xact_lock(${GLOBAL_LOCK})`;
/** Held (session level) by a running bulk replay: while it is, the replay's own recount at its end is still to come. */
export const REPLAY_LOCK = `hashtext(current_schema() || ':projections-replay')`;

/** A read model's lock key, hashed with the schema as the global one is (here and in `projection_batch`). */
const modelKey = (name: string): string => {
  if (!/^[\w-]+$/.test(name)) throw new Error(`projection name ${name}: letters, digits, _ and - only`);
  return `:projection:${name}`;
};
const modelLock = (name: string): string => `pg_advisory_xact_lock(hashtext(current_schema() || '${modelKey(name)}'))`;

/** Code-unit order, the one every batch takes the read models' locks in, so batches never deadlock. */
const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const batchLockSql = (projections: readonly Projection[]): string =>
  `SELECT pg_advisory_xact_lock_shared(${GLOBAL_LOCK}), ${projections
    .map((p) => p.name)
    .sort(byName)
    .map(modelLock)
    .join(', ')}`;

type Checkpoint = Readonly<{ version: number; position: Position; rederive?: boolean }>;

export const readCheckpoints = async (client: pg.ClientBase, names?: readonly string[]): Promise<Map<string, Checkpoint>> => {
  const { rows } = names
    ? await client.query<{ name: string; version: number; position: string }>(
        'SELECT name, version, position FROM projection_checkpoints WHERE name = ANY($1::text[])',
        [names],
      )
    : await client.query<{ name: string; version: number; position: string }>('SELECT name, version, position FROM projection_checkpoints');
  return new Map(rows.map((r) => [r.name, { version: r.version, position: parsePosition(r.position) }]));
};

/** What a bulk replay runs of a statement: none of its counts (recounted at the end), its rows all the same. */
const underived = (st: Sql): Sql[] => (st.derived ? (st.underived ? [st.underived] : []) : [st]);

/** The read model's summaries recounted from its rows, and its replay mark cleared (under its batch lock). */
const rederiveSql = (p: Projection): Sql[] => [
  ...(p.rederive ?? []),
  { text: 'DELETE FROM projection_rederive_pending WHERE name = $1::text', values: [p.name] },
];

export const rederive = async (client: pg.ClientBase, p: Projection): Promise<void> => {
  await applyStatements(client, rederiveSql(p));
};

/** A transaction that excludes every batch of these read models (their locks, shared with rebuilds' exclusion). */
export const withModelLocks = <T>(
  pool: pg.Pool,
  projections: readonly Projection[],
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> => withLockedTransaction(pool, batchLockSql(projections), fn);

export const withProjectionLock = <T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> =>
  withLockedTransaction(pool, PROJECTION_LOCK_SQL, fn);

/** `retired`: a newer version was switched in; `waiting`: a blue/green rebuild of this version runs, so wait, don't truncate. */
type Plan = Readonly<{ positions: Map<string, Position>; retired: ReadonlySet<string>; waiting: ReadonlySet<string> }>;

const prepare = (pool: pg.Pool, projections: readonly Projection[], logger: ProjectorLogger): Promise<Plan> =>
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

const minPosition = (positions: Iterable<Position>): Position => {
  let min: Position | undefined;
  for (const p of positions) if (!min || comparePositions(p, min) < 0) min = p;
  return min ?? START;
};

/** A rebuild reset a checkpoint behind what this run wrote: restart. */
class CheckpointBehind extends Error {
  override readonly name = 'CheckpointBehind';
}

/** A waited-for switch happened (or its rebuild ended): restart, so prepare decides again. */
const checkWaiting = async (
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

type Costs = Map<string, { events: number; statements: number; ms: number }>;

/** Names and positions are ours (checked), so literals are safe and save round trips. */
const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** Two round trips plus statements: BEGIN+locks+checkpoints, then statements, then checkpoint move+COMMIT. */
const inBatchTransaction = (
  pool: pg.Pool,
  projections: readonly Projection[],
  fn: (client: pg.PoolClient, stored: Map<string, Checkpoint>) => Promise<{ finish?: string; count: () => void }>,
): Promise<void> => {
  const names = projections.map((p) => literal(p.name)).join(', ');
  // `rederive`: a replay skipped this read model's counts and is no longer running to recount them (its lock is free).
  const lockSql = `${batchLockSql(projections)};
      SELECT c.name, c.version, c.position, (r.name IS NOT NULL AND pg_try_advisory_xact_lock_shared(${REPLAY_LOCK})) AS rederive
      FROM projection_checkpoints c LEFT JOIN projection_rederive_pending r ON r.name = c.name
      WHERE c.name IN (${names})`;
  return withLockedTransaction(
    pool,
    lockSql,
    (client, begun) => {
      const rows = begun.at(-1)!.rows as { name: string; version: number; position: string; rederive: boolean }[];
      return fn(
        client,
        new Map(rows.map((r) => [r.name, { version: r.version, position: parsePosition(r.position), rederive: r.rederive }])),
      );
    },
    (done) => done.finish,
  ).then(({ count }) => count());
};

type Part = Readonly<{
  projections: readonly Projection[];
  plan: Plan;
  committed: Position;
  events: readonly RecordedEvent[];
}>;

type Planned = Readonly<{ name: string; events: number; statements: readonly Sql[] }>;

const addCosts = (costs: Costs, planned: readonly Planned[], took: readonly number[]): void => {
  let at = 0;
  for (const x of planned) {
    const ms = took.slice(at, (at += x.statements.length)).reduce((a, b) => a + b, 0);
    if (x.events === 0) continue;
    const cost = costs.get(x.name)!;
    cost.events += x.events;
    cost.statements += x.statements.length;
    cost.ms += ms;
  }
};

/** The common case in one round trip: every read model's stored checkpoint is the one this process wrote last. */
const applyChecked = async (pool: pg.Pool, parts: readonly Part[], costs: Costs): Promise<boolean> => {
  if (parts.some((part) => part.plan.waiting.size > 0)) return false;
  const last = parts[0]!.events.at(-1)!.position;
  const models = parts.flatMap((part) => part.projections.filter((p) => !part.plan.retired.has(p.name)).map((p) => ({ p, part })));
  const planned: Planned[] = models.map(({ p, part }) => {
    const mine = part.events.filter((e) => comparePositions(e.position, part.committed) > 0 && p.handles.includes(e.type));
    return { name: p.name, events: mine.length, statements: mine.length > 0 ? p.project(mine) : [] };
  });
  const locked = [...models].sort((a, b) => byName(a.p.name, b.p.name));
  const took = await applyCheckedBatch(
    pool,
    {
      globalKey: GLOBAL_KEY,
      modelKeys: locked.map(({ p }) => modelKey(p.name)),
      names: locked.map(({ p }) => p.name),
      versions: locked.map(({ p }) => p.version),
      expected: locked.map(({ part }) => formatPosition(part.committed)),
      to: formatPosition(last),
    },
    planned.flatMap((x) => x.statements),
  );
  if (!took) return false;
  addCosts(costs, planned, took);
  return true;
};

/** Each projection runs only events after its own checkpoint; `committed` catches a checkpoint reset behind it. */
const applyBatch = async (pool: pg.Pool, parts: readonly Part[], costs: Costs, replay: boolean): Promise<void> => {
  if (!replay && (await applyChecked(pool, parts, costs))) return;
  return applyLocked(pool, parts, costs, replay);
};

/** The long way: locks and stored checkpoints read first, each read model's events filtered by its own checkpoint. */
const applyLocked = (pool: pg.Pool, parts: readonly Part[], costs: Costs, replay: boolean) =>
  inBatchTransaction(
    pool,
    parts.flatMap((part) => part.projections),
    async (client, stored) => {
      const last = parts[0]!.events.at(-1)!.position;
      const moved: Projection[] = [];
      const skipped: Projection[] = [];
      const planned: Planned[] = [];
      for (const { projections, plan, committed, events } of parts) {
        if (plan.waiting.size > 0) await checkWaiting(client, projections, plan, stored);
        for (const p of projections) {
          if (plan.retired.has(p.name) || plan.waiting.has(p.name)) continue;
          const cp = stored.get(p.name);
          if (!cp || cp.version !== p.version) throw new CheckpointBehind(`projection ${p.name}: checkpoint missing or of another version`);
          if (comparePositions(cp.position, committed) < 0) {
            throw new CheckpointBehind(
              `projection ${p.name}: checkpoint ${formatPosition(cp.position)} is behind ${formatPosition(committed)}`,
            );
          }
          if (comparePositions(cp.position, last) >= 0) continue;
          const mine = events.filter((e) => comparePositions(e.position, cp.position) > 0 && p.handles.includes(e.type));
          const all = mine.length > 0 ? p.project(mine) : [];
          const statements = [...(replay ? all.flatMap(underived) : all), ...(cp.rederive && !replay ? rederiveSql(p) : [])];
          planned.push({ name: p.name, events: mine.length, statements });
          if (replay && p.rederive) skipped.push(p);
          moved.push(p);
        }
      }
      const took = await applyStatements(
        client,
        planned.flatMap((x) => x.statements),
      );
      // Counted once sure to commit, so a batch retried alone is not counted twice.
      const count = (): void => addCosts(costs, planned, took);
      if (moved.length === 0) return { count };
      const marks =
        skipped.length === 0
          ? ''
          : `; INSERT INTO projection_rederive_pending (name) VALUES ${skipped.map((p) => `(${literal(p.name)})`).join(', ')}
      ON CONFLICT (name) DO NOTHING`;
      return {
        count,
        finish: `UPDATE projection_checkpoints SET position = ${literal(formatPosition(last))}, updated_at = now()
      WHERE ${moved.map((p) => `(name = ${literal(p.name)} AND version = ${Number(p.version)})`).join(' OR ')}${marks}`,
      };
    },
  );

const SMALL_BATCH = 64;
/** What a batch of live events is waited for: past it a batch costs little less per event, and readers without a wait lag further. */
const COALESCE_EVENTS = SMALL_BATCH;

type Submission = Part & Readonly<{ optional: boolean; done: (joined: boolean) => void; failed: (error: unknown) => void }>;

/** Groups caught up to the same place commit in one transaction; a failed shared batch retries each group alone. */
const batchCombiner = (pool: pg.Pool, costs: Costs, limit: Limit, maxShares: number, replay: boolean) => {
  let pending: Submission[] = [];
  const alone = (s: Submission): Promise<void> => limit(() => applyBatch(pool, [s], costs, replay)).then(() => s.done(true), s.failed);
  const weight = (s: Submission): number =>
    s.projections.reduce((sum, p) => {
      const c = costs.get(p.name)!;
      return sum + (c.events > 0 ? c.ms / c.events : 0.1) * s.events.length;
    }, 0);
  /** Heaviest first, to the lightest share. */
  const shares = (subs: Submission[]): Submission[][] => {
    const n = Math.min(maxShares, subs.length, Math.ceil(subs[0]!.events.length / SMALL_BATCH));
    if (n <= 1) return [subs];
    const out = Array.from({ length: n }, () => ({ load: 0, subs: [] as Submission[] }));
    for (const s of [...subs].sort((a, b) => weight(b) - weight(a))) {
      const lightest = out.reduce((min, x) => (x.load < min.load ? x : min));
      lightest.subs.push(s);
      lightest.load += weight(s);
    }
    return out.map((x) => x.subs);
  };
  /** One big batch of many read models (a replay): its read groups in parallel transactions, each with its checkpoints. */
  const spread = async (s: Submission): Promise<void> => {
    const units = readGroups(s.projections).map((projections) => ({ ...s, projections }));
    try {
      await Promise.all(shares(units).map((share) => limit(() => applyBatch(pool, share, costs, replay))));
    } catch (error) {
      return s.failed(error);
    }
    s.done(true);
  };
  const together = async (subs: Submission[]): Promise<void> => {
    const needed = subs.filter((s) => !s.optional);
    if (needed.length === 0) return subs.forEach((s) => s.done(false));
    if (subs.length === 1 && replay && subs[0]!.events.length > SMALL_BATCH) return spread(subs[0]!);
    if (subs.length === 1) return alone(subs[0]!);
    try {
      await limit(() => applyBatch(pool, subs, costs, replay));
    } catch {
      for (const s of subs) if (s.optional) s.done(false);
      await Promise.all(needed.map(alone));
      return;
    }
    for (const s of subs) s.done(true);
  };
  const flush = (): void => {
    const byRange = new Map<string, Submission[]>();
    for (const s of pending) {
      const key = `${formatPosition(s.events[0]!.position)}-${formatPosition(s.events.at(-1)!.position)}`;
      byRange.set(key, [...(byRange.get(key) ?? []), s]);
    }
    pending = [];
    for (const subs of byRange.values()) for (const share of shares(subs)) void together(share);
  };
  return (part: Part, optional: boolean): Promise<boolean> =>
    new Promise((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ ...part, optional, done: resolve, failed: reject });
    });
};
type Combiner = ReturnType<typeof batchCombiner>;

/** Bounds how long a reader in another process waits on an idle read model. */
const IDLE_CHECKPOINT_MS = 20;

/** A retired read model is "caught up" as far as this process is concerned. */
const BEYOND_ALL: Position = Object.freeze({ commit: 2n ** 64n, prepare: 2n ** 63n });

type Group = Readonly<{ loop: FollowLoop; projections: readonly Projection[] }>;

const semaphore = (n: number) => {
  let free = n;
  const queue: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (free > 0) free -= 1;
    else await new Promise<void>((resolve) => queue.push(resolve));
    try {
      return await fn();
    } finally {
      const next = queue.shift();
      if (next) next();
      else free += 1;
    }
  };
};
type Limit = ReturnType<typeof semaphore>;

const startGroup = (o: ProjectorOptions, projections: readonly Projection[], combine: Combiner, limit: Limit): Group => {
  const { store, pool, batchSize = 2000, logger = noopLogger } = o;
  const name = `projector (${projections.map((p) => p.name).join(', ')})`;
  const handles = new Set(projections.flatMap((p) => p.handles));
  const loop = startFollowLoop({
    name,
    logger,
    retryDelayMs: o.retryDelayMs,
    maxRetryDelayMs: o.maxRetryDelayMs,
    onFailure: o.onFailure,
    planned: (error) => error instanceof CheckpointBehind,
    run: async ({ signal, advance, succeeded }) => {
      const plan = await limit(() => prepare(pool, projections, logger));
      const live = projections.filter((p) => !plan.retired.has(p.name));
      if (live.length === 0) {
        // Whoever waits for these read models must not wait on this process.
        advance(BEYOND_ALL);
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        return;
      }
      // Every projection waiting: follow from the head only to notice a switch.
      let committed = plan.positions.size > 0 ? minPosition(plan.positions.values()) : await store.headPosition();
      let seen = committed;
      advance(committed);
      let chain: Promise<void> = Promise.resolve();
      let idleTimer: NodeJS.Timeout | undefined;
      let idleWriting = false;
      let ended = false;
      let lastWrite = 0;
      let failed: unknown;
      /** Serialised: a group's batches and checkpoint moves never overlap. */
      const write = (events: readonly RecordedEvent[], optional = false): Promise<boolean> => {
        const step = chain.then(async () => {
          if (failed !== undefined) throw failed;
          const last = events.at(-1)!.position;
          if (comparePositions(last, committed) <= 0) return true;
          if (!(await combine({ projections: live, plan, committed, events }, optional))) return false;
          committed = last;
          lastWrite = performance.now();
          return true;
        });
        chain = step.then(
          () => undefined,
          (error: unknown) => {
            failed ??= error;
          },
        );
        return step;
      };
      /** At most one move waits at a time: one per batch queued without bound and starved the busy groups. */
      const armIdleMove = (): void => {
        if (idleTimer || idleWriting) return;
        idleTimer = setTimeout(
          () => {
            idleTimer = undefined;
            idleWriting = true;
            write([{ position: seen } as RecordedEvent])
              .catch(() => false)
              .finally(() => {
                idleWriting = false;
                if (!ended && failed === undefined && comparePositions(seen, committed) > 0) armIdleMove();
              });
          },
          Math.max(0, lastWrite + IDLE_CHECKPOINT_MS - performance.now()),
        );
      };
      const subscription: Subscription = store.subscribe({
        after: committed,
        batchSize,
        signal,
        onError: () => undefined,
        onEvents: async (events) => {
          if (events.length === 0) return;
          const last = events.at(-1)!.position;
          const relevant = plan.waiting.size > 0 || events.some((e) => handles.has(e.type));
          if (relevant) {
            clearTimeout(idleTimer);
            idleTimer = undefined;
            await write(events);
          } else if (!idleTimer && !idleWriting) {
            idleWriting = true;
            void write(events, true)
              .catch(() => false)
              .then((joined) => {
                idleWriting = false;
                if (!joined || (!ended && failed === undefined && comparePositions(seen, committed) > 0)) armIdleMove();
              });
          }
          if (failed !== undefined) throw failed;
          seen = last;
          advance(last);
          succeeded();
          o.onBatch?.({ events: events.length, position: last });
        },
      });
      try {
        await subscription.done;
      } finally {
        ended = true;
        clearTimeout(idleTimer);
        // Stores how far it has seen, so the next follower resumes there and no reader waits on a pending move.
        if (failed === undefined && comparePositions(seen, committed) > 0) write([{ position: seen } as RecordedEvent]).catch(() => false);
        await chain.catch(() => undefined);
      }
      if (failed !== undefined) throw failed;
    },
  });
  return { loop, projections };
};

const noopLogger: ProjectorLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Each batch commits with its checkpoints, so a crash neither loses nor double-applies an event. */
export const startProjector = (options: ProjectorOptions): Projector => {
  const { projections, independent = true } = options;
  const costs: Costs = new Map(projections.map((p) => [p.name, { events: 0, statements: 0, ms: 0 }]));
  const concurrent = Math.max(1, options.maxConcurrentBatches ?? 3);
  const limit = semaphore(concurrent);
  const combine = batchCombiner(options.pool, costs, limit, concurrent, options.replay === true);
  const hurry = options.hurry ?? createWakeSignal();
  const coalesceMs = options.replay ? 0 : (options.coalesceMs ?? 100);
  const shared = independent ? shareSubscriptions(options.store, { coalesceMs, coalesceEvents: COALESCE_EVENTS, hurry }) : undefined;
  const o = shared ? { ...options, store: shared } : options;
  const groups = independent
    ? readGroups(projections).map((g) => startGroup(o, g, combine, limit))
    : [startGroup(o, projections, combine, limit)];
  const byName = new Map(groups.flatMap((g) => g.projections.map((p) => [p.name, g] as const)));
  options.logger?.info({ projections: projections.map((p) => p.name), independent }, 'projector following the event store');
  const done = Promise.all(groups.map((g) => g.loop.done)).then(() => undefined);
  const waitForGroups = (list: readonly Group[], position: Position): Promise<void> =>
    Promise.all(list.map((g) => g.loop.waitFor(position))).then(() => undefined);
  return {
    done,
    stop: async () => {
      await Promise.all(groups.map((g) => g.loop.stop()));
      await shared?.close();
    },
    waitFor: (position) => waitForGroups(groups, position),
    progress: (name) => byName.get(name)?.loop.position(),
    hurry: () => hurry.wake(),
    follows: (name) => byName.has(name),
    waitForModels: (names, position) =>
      waitForGroups([...new Set(names.map((n) => byName.get(n)).filter((g) => g !== undefined))], position),
    costs: () => [...costs].map(([name, c]) => ({ name, ...c })),
  };
};
