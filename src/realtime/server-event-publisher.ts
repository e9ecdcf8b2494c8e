import { createPersonKeys } from '../erasure/person-keys.js';
import { withPersonalData } from '../erasure/personal-store.js';
import type pg from 'pg';
import type { Rates } from '../commands/rates.js';
import {
  comparePositions,
  formatPosition,
  parsePosition,
  START,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../infra/event-store/event-store.port.js';
import { sleep, startFollowLoop } from '../infra/follow/follow-loop.js';
import type { ServerEventBus } from '../infra/bus.js';
import { DEFAULT_FEED_SETTINGS, feedEventsOf, publicBetOf, type FeedSettings } from './feeds.js';
import { serverEventsOf, settledBetOf, type BetRecord } from './server-events.js';
import { newLookupCaches, prepareLookups, publicUsersOf } from './server-event-lookups.js';
import type { BusMessage } from './protocol.js';

export type LedgerPublisherDeps = Readonly<{
  store: EventStore;
  pool: pg.Pool;
  bus: ServerEventBus;
  rates: Rates;
  feeds?: FeedSettings;
  name?: string;
  /** Default 250: the stored checkpoint trails what was published by at most this long (a restart publishes that again). */
  checkpointEveryMs?: number;
  logger?: { warn(obj: object, msg?: string): void };
}>;

export type LedgerPublisher = Readonly<{ stop: () => Promise<void> }>;

const UPSERT_CHECKPOINT = `INSERT INTO publisher_checkpoints (name, position) VALUES ($1, $2)
  ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = now()`;

/**
 * The checkpoint moves after a batch is published: at-least-once delivery, and gateways drop repeats by position. It is
 * stored at most every `checkpointEveryMs` and on stop, not after every batch: under load that was a committed write
 * every 10 ms, for a replay of a quarter of a second at most after a crash.
 */
export const startLedgerPublisher = async (given: LedgerPublisherDeps): Promise<LedgerPublisher> => {
  // Profile patches and usernames come from user events: their personal fields decrypted (docs/compliance-erasure.md).
  const deps = { ...given, store: withPersonalData(given.store, createPersonKeys(given.pool)) };
  const name = deps.name ?? 'realtime';
  const feeds = deps.feeds ?? DEFAULT_FEED_SETTINGS;
  const { rows } = await deps.pool.query<{ position: string }>('SELECT position FROM publisher_checkpoints WHERE name = $1', [name]);
  // Starts at the head: sockets care about what happens from now on.
  const after = rows[0] ? parsePosition(rows[0].position) : await deps.store.headPosition();
  const caches = newLookupCaches();

  const publishBatch = async (events: readonly RecordedEvent[]): Promise<void> => {
    const lookups = await prepareLookups(deps, events, caches);
    const out: [string, BusMessage][] = [];
    const settled: BetRecord[] = [];
    for (const e of events) {
      for (const u of serverEventsOf(e, lookups)) out.push([u.name, { userId: u.userId, position: u.position, payload: u.payload }]);
      const bet = settledBetOf(e, lookups);
      if (bet) settled.push(bet);
    }
    if (settled.length > 0) {
      const users = await publicUsersOf(deps.pool, [...new Set(settled.map((b) => b.userId))]);
      for (const feed of feedEventsOf(
        settled.map((b) => publicBetOf(b, users.get(b.userId))),
        feeds,
      ))
        out.push([feed.name, { room: feed.room, payload: feed.payload }]);
    }
    // Not awaited one by one: the bus's single publishing connection keeps their order.
    await Promise.all(out.map(([eventName, message]) => deps.bus.publish(eventName, message)));
    await published(events.at(-1)!.position);
  };

  const every = deps.checkpointEveryMs ?? 250;
  let lastPublished: Position | undefined;
  let unsaved: string | undefined;
  let savedAt = -Infinity;
  let saving: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const write = async (): Promise<void> => {
    const position = unsaved;
    if (position === undefined) return;
    unsaved = undefined;
    savedAt = performance.now();
    try {
      await deps.pool.query(UPSERT_CHECKPOINT, [name, position]);
    } catch (error) {
      unsaved ??= position;
      throw error;
    }
  };
  /** Stores the last published position, one write at a time, each after the one before whatever its outcome. */
  const save = (): Promise<void> => {
    const next = saving.then(write, write);
    saving = next.catch(() => undefined);
    return next;
  };
  const published = async (position: Position): Promise<void> => {
    lastPublished = position;
    unsaved = formatPosition(position);
    const wait = savedAt + every - performance.now();
    if (wait <= 0) return save();
    timer ??= setTimeout(() => {
      timer = undefined;
      save().catch((error: unknown) => deps.logger?.warn({ err: error }, 'realtime publisher: checkpoint failed; kept for the next'));
    }, wait);
    timer.unref();
  };

  const logger = deps.logger;
  let start = after ?? START;
  const follow = startFollowLoop({
    name: 'realtime publisher',
    ...(logger ? { logger: { warn: (o, m) => logger.warn(o, m), error: (o, m) => logger.warn(o, m) } } : {}),
    run: async ({ signal, succeeded }) => {
      const stored = await deps.pool.query<{ position: string }>('SELECT position FROM publisher_checkpoints WHERE name = $1', [name]);
      if (stored.rows[0]) start = parsePosition(stored.rows[0].position);
      // The stored checkpoint may trail what this publisher sent before the restart: not again.
      if (lastPublished && comparePositions(lastPublished, start) > 0) start = lastPublished;
      const subscription = deps.store.subscribe({
        after: start,
        signal,
        // Retried with backoff: the checkpoint only moves once the publish went out.
        onEvents: async (events) => {
          for (let delay = 100; ; delay = Math.min(delay * 2, 5_000)) {
            try {
              await publishBatch(events);
              succeeded();
              return;
            } catch (error) {
              if (signal.aborted) throw error;
              logger?.warn({ err: error, retryInMs: delay }, 'realtime publish failed; retrying');
              await sleep(delay, signal);
            }
          }
        },
      });
      await subscription.done;
    },
  });
  return {
    stop: async () => {
      await follow.stop();
      clearTimeout(timer);
      timer = undefined;
      await save().catch((error: unknown) => deps.logger?.warn({ err: error }, 'realtime publisher: last checkpoint failed'));
    },
  };
};
