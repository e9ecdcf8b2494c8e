import { createPersonKeys } from '../erasure/person-keys.js';
import { withPersonalData } from '../erasure/personal-store.js';
import { comparePositions, type Position, type RecordedEvent, type Subscription } from '../infra/event-store/event-store.port.js';
import { startFollowLoop, type FollowLoop } from '../infra/follow/follow-loop.js';
import { shareSubscriptions } from '../infra/follow/shared-subscriptions.js';
import { createWakeSignal } from '../infra/follow/wake-signal.js';
import type { Projection } from './projection.js';
import { readGroups } from './projection-reads.js';
import { semaphore, type Limit } from '../shared/semaphore.js';
import type { ProjectorLogger, ProjectorOptions, Projector } from './projector.types.js';
import { CheckpointBehind } from './projection-checkpoints.js';
import { prepare, minPosition } from './projection-plan.js';
import { type Costs } from './projection-batch.js';
import { batchCombiner, COALESCE_EVENTS, type Combiner } from './batch-combiner.js';

export type { Projector, ProjectorLogger, ProjectorOptions, ProjectionCost } from './projector.types.js';

/** Bounds how long a reader in another process waits on an idle read model. */
const IDLE_CHECKPOINT_MS = 20;

/** A retired read model is "caught up" as far as this process is concerned. */
const BEYOND_ALL: Position = Object.freeze({ commit: 2n ** 64n, prepare: 2n ** 63n });

type Group = Readonly<{ loop: FollowLoop; projections: readonly Projection[] }>;

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
  // Read models see personal fields decrypted, or as erased once the person's key is gone (docs/compliance-erasure.md).
  const revealed = withPersonalData(options.store, createPersonKeys(options.pool));
  const shared = independent ? shareSubscriptions(revealed, { coalesceMs, coalesceEvents: COALESCE_EVENTS, hurry }) : undefined;
  const o = { ...options, store: shared ?? revealed };
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
