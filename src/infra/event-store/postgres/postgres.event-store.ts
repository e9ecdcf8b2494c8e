import type pg from 'pg';
import { siblingPool } from '../../pg.js';
import type { AppendOutcome, AppendRequest, AppendResult, EventStore, Subscription } from '../event-store.port.js';
import { appendOutcomes } from './postgres.append.js';
import { headPosition, readAll, readSnapshot, readStream, readStreamBackward, readStreamByKeys, writeSnapshot } from './postgres.reads.js';
import { startSubscription } from './postgres.subscription.js';
import { createNotifier, type Logger } from './postgres.wake-up.js';
import { createWakeSignal } from '../../follow/wake-signal.js';

export type PostgresEventStoreDeps = Readonly<{
  pool: pg.Pool;
  pollIntervalMs?: number;
  /** Default 10: a busy ledger is read at most every 10 ms, in batches; an idle one is read at once when woken. */
  coalesceMs?: number;
  notifyChannel?: string;
  logger?: Logger;
}>;

/** The append's connections: a generic plan, chosen once per connection, that reaches every table by key even while it is small. */
export const WRITER_SETTINGS: readonly string[] = ['plan_cache_mode=force_generic_plan', 'enable_seqscan=off'];
/** The follow read's connections: one generic plan that walks the position index in order, never a scan-and-sort made while small. */
export const FOLLOWER_SETTINGS: readonly string[] = [...WRITER_SETTINGS, 'enable_bitmapscan=off', 'enable_sort=off'];

const isFailure = (o: AppendOutcome): o is Exclude<AppendOutcome, AppendResult> => o instanceof Error;

/** close() stops subscriptions and the LISTEN connection; the pool stays the caller's. */
export const createPostgresEventStore = (deps: PostgresEventStoreDeps): EventStore => {
  const { pool, logger } = deps;
  const signal = createWakeSignal();
  const notifier = createNotifier({ pool, channel: deps.notifyChannel ?? 'ledger_events', signal, logger });
  const subscriptions = new Set<Subscription>();
  let closed = false;
  const writer = siblingPool(pool, 2, WRITER_SETTINGS);
  const follower = siblingPool(pool, 1, FOLLOWER_SETTINGS);

  const appendMany = async (requests: readonly AppendRequest[]): Promise<AppendOutcome[]> => {
    const outcomes = await appendOutcomes(writer, requests);
    if (outcomes.some((o) => !isFailure(o) && !o.idempotent)) {
      signal.wake();
      notifier.announce();
    }
    return outcomes;
  };

  return {
    kind: 'postgres',
    claimsKeys: true,
    appendConcurrency: 1,
    appendMany,
    append: async (request: AppendRequest): Promise<AppendResult> => {
      const [outcome] = await appendMany([request]);
      if (!outcome || isFailure(outcome)) throw outcome;
      return outcome;
    },
    readStream: (streamId, options) => readStream(pool, streamId, options),
    readStreamBackward: (streamId, options) => readStreamBackward(pool, streamId, options),
    readStreamByKeys: (streamId, keys, options) => readStreamByKeys(pool, streamId, keys, options),
    readSnapshot: (streamId) => readSnapshot(pool, streamId),
    writeSnapshot: (streamId, snapshot) => writeSnapshot(pool, streamId, snapshot),
    readAll: (options) => readAll(pool, options),
    headPosition: () => headPosition(pool),
    subscribe: (options) => {
      if (closed) throw new Error('event store is closed');
      const subscription = startSubscription(
        { pool: follower, signal, notifier, pollIntervalMs: deps.pollIntervalMs ?? 250, coalesceMs: deps.coalesceMs ?? 10, logger },
        options,
      );
      subscriptions.add(subscription);
      void subscription.done.catch(() => undefined).finally(() => subscriptions.delete(subscription));
      return subscription;
    },
    ping: async () => {
      await pool.query('SELECT 1');
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.all([...subscriptions].map((s) => s.stop()));
      await notifier.close();
      await Promise.all([writer.end(), follower.end()]);
    },
  };
};
