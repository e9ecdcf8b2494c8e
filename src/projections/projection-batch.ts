import type pg from 'pg';
import {
  comparePositions,
  formatPosition,
  parsePosition,
  type Position,
  type RecordedEvent,
} from '../infra/event-store/event-store.port.js';
import { withLockedTransaction } from '../infra/follow/locked-transaction.js';
import type { Projection, Sql } from './projection.js';
import { applyCheckedBatch, applyStatements } from './apply-statements.js';
import { batchLockSql, byModelName, GLOBAL_KEY, modelKey, REPLAY_LOCK } from './projection-locks.js';
import { rederiveSql, underived, CheckpointBehind, type Checkpoint } from './projection-checkpoints.js';
import { checkWaiting, type Plan } from './projection-plan.js';

/** One batch of events applied to its read models in one transaction with their checkpoints. */
export type Costs = Map<string, { events: number; statements: number; ms: number }>;

/** Names and positions are ours (checked), so literals are safe and save round trips. */
export const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** Two round trips plus statements: BEGIN+locks+checkpoints, then statements, then checkpoint move+COMMIT. */
export const inBatchTransaction = (
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

export type Part = Readonly<{
  projections: readonly Projection[];
  plan: Plan;
  committed: Position;
  events: readonly RecordedEvent[];
}>;

export type Planned = Readonly<{ name: string; events: number; statements: readonly Sql[] }>;

export const addCosts = (costs: Costs, planned: readonly Planned[], took: readonly number[]): void => {
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
export const applyChecked = async (pool: pg.Pool, parts: readonly Part[], costs: Costs): Promise<boolean> => {
  if (parts.some((part) => part.plan.waiting.size > 0)) return false;
  const last = parts[0]!.events.at(-1)!.position;
  const models = parts.flatMap((part) => part.projections.filter((p) => !part.plan.retired.has(p.name)).map((p) => ({ p, part })));
  const planned: Planned[] = models.map(({ p, part }) => {
    const mine = part.events.filter((e) => comparePositions(e.position, part.committed) > 0 && p.handles.includes(e.type));
    return { name: p.name, events: mine.length, statements: mine.length > 0 ? p.project(mine) : [] };
  });
  const locked = [...models].sort((a, b) => byModelName(a.p.name, b.p.name));
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
export const applyBatch = async (pool: pg.Pool, parts: readonly Part[], costs: Costs, replay: boolean): Promise<void> => {
  if (!replay && (await applyChecked(pool, parts, costs))) return;
  return applyLocked(pool, parts, costs, replay);
};

/** The long way: locks and stored checkpoints read first, each read model's events filtered by its own checkpoint. */
export const applyLocked = (pool: pg.Pool, parts: readonly Part[], costs: Costs, replay: boolean) =>
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
