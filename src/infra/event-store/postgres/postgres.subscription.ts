import type pg from 'pg';
import type { Subscription, SubscriptionOptions } from '../event-store.port.js';
import { sleep } from '../../follow/follow-loop.js';
import { readAllFollowing } from './postgres.reads.js';
import { runSubscription } from '../run-subscription.js';
import type { Logger, Notifier } from './postgres.wake-up.js';
import type { WakeSignal } from '../../follow/wake-signal.js';

export type SubscriptionDeps = Readonly<{
  pool: pg.Pool;
  signal: WakeSignal;
  notifier: Notifier;
  pollIntervalMs: number;
  /** Reads after a wake-up start at least this long after the previous one, so a busy ledger is read in batches. */
  coalesceMs?: number;
  logger?: Logger;
}>;

const DEFAULT_BATCH_SIZE = 500;
const FIRST_RETRY_MS = 5;
const MAX_READ_BACKOFF_MS = 5_000;
/** Held-back events are committed already: they are looked for at least this often, whatever the poll interval. */
const MAX_HELD_BACK_WAIT_MS = 100;

/** Catch-up loop; events held back by an older open transaction are polled for soon (5 ms, doubling to 100 ms). */
export const startSubscription = (deps: SubscriptionDeps, options: SubscriptionOptions): Subscription => {
  const { pool, signal, notifier, pollIntervalMs, logger } = deps;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;

  const run = async (abort: AbortSignal): Promise<void> => {
    let after = options.after;
    let retryMs = FIRST_RETRY_MS;
    let failures = 0;
    let lastRead = 0;
    let atHead = false;
    const coalesceMs = deps.coalesceMs ?? 0;
    notifier.acquire();
    try {
      while (!abort.aborted) {
        // Only at the head: a follower catching up reads full batches back to back.
        const wait = lastRead + coalesceMs - performance.now();
        if (atHead && wait > 0) await sleep(wait, abort);
        lastRead = performance.now();
        const seen = signal.generation();
        let events;
        let heldBack: boolean;
        try {
          ({ events, heldBack } = await readAllFollowing(pool, after, batchSize));
          failures = 0;
        } catch (error) {
          if (abort.aborted) break;
          failures += 1;
          logger?.warn({ err: error, failures }, 'event store subscription read failed; retrying');
          await signal.wait(signal.generation(), Math.min(MAX_READ_BACKOFF_MS, 50 * 2 ** failures), abort);
          continue;
        }
        if (abort.aborted) break;
        atHead = events.length < batchSize && !heldBack;
        if (events.length > 0) {
          await options.onEvents(events);
          after = events.at(-1)!.position;
          retryMs = FIRST_RETRY_MS;
          // A short read with nothing held back has read all there was: what commits later wakes us (or the poll finds it).
          if (events.length === batchSize || heldBack) continue;
          await signal.wait(seen, pollIntervalMs, abort);
          continue;
        }
        if (heldBack) {
          // Not cut short by our own appends: they commit behind the open transaction and stay held back with the rest.
          await sleep(retryMs, abort);
          retryMs = Math.min(retryMs * 2, pollIntervalMs, MAX_HELD_BACK_WAIT_MS);
        } else {
          retryMs = FIRST_RETRY_MS;
          await signal.wait(seen, pollIntervalMs, abort);
        }
      }
    } finally {
      await notifier.release();
    }
  };

  return runSubscription(options, run, (error) => logger?.warn({ err: error }, 'subscription onError threw'));
};
