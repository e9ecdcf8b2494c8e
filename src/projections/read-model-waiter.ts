import type pg from 'pg';
import { comparePositions, parsePosition, START, type EventStore, type Position } from '../infra/event-store/event-store.port.js';
import { sleep } from '../infra/follow/follow-loop.js';
import { COMMITTED_HEAD_SQL } from '../infra/event-store/postgres/postgres.reads.js';

/** Where the read models stand, and whether they reached the target in time. */
export type ReadModelsReached = Readonly<{ target: Position; position: Position; stale: boolean }>;

export type ReadModelWaiter = Readonly<{
  /** Waits at most `timeoutMs` for `target` (default: every event committed at the call); `stale` when the bound was hit. */
  reach(names: readonly string[], target: Position | undefined, timeoutMs: number): Promise<ReadModelsReached>;
}>;

/** Optional: without it the stored checkpoints decide. */
export type LocalProgress = Readonly<{
  progress(name: string): Position | undefined;
  waitForModels(names: readonly string[], position: Position): Promise<void>;
  hurry?(): void;
  /** True for a read model this process's projector runs, built yet or not (it is preparing it at start). */
  follows?(name: string): boolean;
}>;

export type ReadModelWaiterDeps = Readonly<{
  pool: pg.Pool;
  store: EventStore;
  local?: LocalProgress | undefined;
  /** Polled only while a read waits. */
  pollMs?: number;
  /** Tells projectors in other processes that a read waits on them (they coalesce new events otherwise). */
  askOthers?: () => void;
}>;

/** Includes an event an older open transaction still hides, so a command acknowledged before the read is at or before it. */
const HEAD_AND_CHECKPOINTS_SQL = `
  SELECT (${COMMITTED_HEAD_SQL}) AS head,
         coalesce((SELECT json_object_agg(name, position) FROM projection_checkpoints WHERE name = ANY($1::text[])), '{}') AS positions`;
const CHECKPOINTS_SQL = `SELECT coalesce(json_object_agg(name, position), '{}') AS positions
  FROM projection_checkpoints WHERE name = ANY($1::text[])`;

const max = (a: Position | undefined, b: Position | undefined): Position | undefined =>
  !a ? b : !b ? a : comparePositions(a, b) >= 0 ? a : b;

export const createReadModelWaiter = (deps: ReadModelWaiterDeps): ReadModelWaiter => {
  const pollMs = deps.pollMs ?? 5;

  /** The stored checkpoint or, when ahead, this process's progress. */
  const lowest = (names: readonly string[], stored: Record<string, string>): Position => {
    let low: Position | undefined;
    for (const n of names) {
      const at = max(stored[n] ? parsePosition(stored[n]) : undefined, deps.local?.progress(n)) ?? START;
      if (!low || comparePositions(at, low) < 0) low = at;
    }
    return low ?? START;
  };

  const readStored = async (names: readonly string[]): Promise<Record<string, string>> =>
    (await deps.pool.query<{ positions: Record<string, string> }>(CHECKPOINTS_SQL, [names])).rows[0]!.positions;

  return {
    reach: async (names, given, timeoutMs) => {
      const deadline = performance.now() + timeoutMs;
      let target = given;
      let stored: Record<string, string>;
      if (!target && deps.store.kind === 'postgres') {
        const { rows } = await deps.pool.query<{ head: string | null; positions: Record<string, string> }>(HEAD_AND_CHECKPOINTS_SQL, [
          names,
        ]);
        target = rows[0]!.head ? parsePosition(rows[0]!.head) : START;
        stored = rows[0]!.positions;
      } else {
        if (!target) target = await deps.store.headPosition();
        stored = await readStored(names);
      }
      const goal = target;
      let position = lowest(names, stored);
      // Never built by any projector, nor about to be by this process's: waiting cannot help.
      if (names.some((n) => stored[n] === undefined && deps.local?.progress(n) === undefined && !deps.local?.follows?.(n))) {
        return { target: goal, position, stale: comparePositions(position, goal) < 0 };
      }
      if (comparePositions(position, goal) < 0) {
        deps.local?.hurry?.();
        deps.askOthers?.();
      }
      const stop = new AbortController();
      // A local projector says at once when its read models moved; the poll covers the others.
      void deps.local?.waitForModels(names, goal).then(
        () => stop.abort(),
        () => undefined,
      );
      try {
        while (comparePositions(position, goal) < 0) {
          const left = deadline - performance.now();
          if (left <= 0) return { target: goal, position, stale: true };
          await sleep(Math.min(pollMs, left), stop.signal);
          position = lowest(names, stop.signal.aborted ? {} : await readStored(names));
          if (stop.signal.aborted && comparePositions(position, goal) < 0) position = lowest(names, await readStored(names));
        }
      } finally {
        stop.abort();
      }
      return { target: goal, position, stale: false };
    },
  };
};
