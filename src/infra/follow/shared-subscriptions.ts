import {
  comparePositions,
  formatPosition,
  type EventStore,
  type Position,
  type RecordedEvent,
  type Subscription,
  type SubscriptionOptions,
} from '../event-store/event-store.port.js';
import { runSubscription } from '../event-store/run-subscription.js';
import { sleep } from './follow-loop.js';
import type { WakeSignal } from './wake-signal.js';

export type SharedSubscriptionsOptions = Readonly<{
  /** Recent events kept in memory for the followers; one further behind reads the store until it is back. */
  maxBuffered?: number;
  /** Bounds the events of pages read for followers behind that buffer and kept for the others behind it. */
  maxPaged?: number;
  logger?: { warn(obj: object, msg?: string): void };
  /** The next read waits until this long after the last, for larger batches under load; a wake-up of `hurry` ends the wait. */
  coalesceMs?: number;
  /**
   * With it, the wait is what this many events take at the rate the last read saw, between a quarter of `coalesceMs` and
   * `coalesceMs`: a slow ledger still fills a batch, and a busy one is not held back once a batch is full.
   */
  coalesceEvents?: number;
  hurry?: WakeSignal;
}>;

type Feed = {
  subscription: Subscription;
  controller: AbortController;
  ready: Promise<void>;
  base: Position | undefined;
  buffer: RecordedEvent[];
  grew: Set<() => void>;
};

const firstAfter = (buffer: readonly RecordedEvent[], after: Position): number => {
  let lo = 0;
  let hi = buffer.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePositions(buffer[mid]!.position, after) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

/** How long the next read waits after one that brought `events` in `sinceLastRead` ms (`coalesceMs`, `coalesceEvents`). */
export const coalesceWait = (o: SharedSubscriptionsOptions, events: number, sinceLastRead: number): number => {
  const most = o.coalesceMs ?? 0;
  if (o.coalesceEvents === undefined) return most;
  return Math.min(most, Math.max(most / 4, (o.coalesceEvents * sinceLastRead) / Math.max(1, events)));
};

/** One store subscription per process fills a buffer of recent events; followers behind it read the store until they reach it. */
export const shareSubscriptions = (store: EventStore, options: SharedSubscriptionsOptions = {}): EventStore => {
  const maxBuffered = options.maxBuffered ?? 20_000;
  const maxPaged = options.maxPaged ?? 100_000;
  const feedBatch = 2_000;
  let feed: Feed | undefined;
  let followers = 0;
  let closed = false;

  const openFeed = (): Feed => {
    const controller = new AbortController();
    const f: Feed = { controller, base: undefined, buffer: [], grew: new Set(), ready: Promise.resolve(), subscription: undefined! };
    let started: () => void = () => undefined;
    f.ready = new Promise<void>((resolve) => {
      started = resolve;
    });
    const wake = (): void => {
      for (const w of [...f.grew]) w();
    };
    const begin = async (): Promise<void> => {
      // The buffer starts at the head: followers behind it catch up on their own reads.
      for (let delay = 50; !controller.signal.aborted; delay = Math.min(delay * 2, 5_000)) {
        try {
          f.base = await store.headPosition();
          break;
        } catch (error) {
          options.logger?.warn({ err: error }, 'shared subscription: reading the head failed; retrying');
          await new Promise((r) => setTimeout(r, delay));
        }
      }
      started();
      if (controller.signal.aborted || !f.base) return;
      let hurried = options.hurry?.generation() ?? 0;
      let lastReadAt = performance.now();
      f.subscription = store.subscribe({
        after: f.base,
        signal: controller.signal,
        batchSize: feedBatch,
        onEvents: async (events) => {
          const readAt = performance.now();
          const coalesce = coalesceWait(options, events.length, readAt - lastReadAt);
          lastReadAt = readAt;
          f.buffer.push(...events);
          if (f.buffer.length > maxBuffered + maxBuffered / 4) {
            const drop = f.buffer.length - maxBuffered;
            f.base = f.buffer[drop - 1]!.position;
            f.buffer.splice(0, drop);
          }
          wake();
          const wait = readAt + coalesce - performance.now();
          if (wait <= 0 || events.length >= feedBatch) return;
          if (options.hurry) await options.hurry.wait(hurried, wait, controller.signal);
          else await sleep(wait, controller.signal);
          hurried = options.hurry?.generation() ?? 0;
        },
      });
      await f.subscription.done.catch((error: unknown) => options.logger?.warn({ err: error }, 'shared subscription ended'));
    };
    void begin();
    return f;
  };

  /**
   * Followers behind the buffer (a projector catching up after a restart) ask for the same pages, the quick ones first: one
   * read serves them all. A full page stays until every follower has had it (or older pages pass the bound), since nothing
   * can later sort into it; a short one may still grow, so it goes once read.
   */
  type Page = { maxCount: number; read: Promise<RecordedEvent[]>; served: number };
  const pages = new Map<string, Page>();
  const forget = (key: string, page: Page): void => {
    if (pages.get(key) === page) pages.delete(key);
  };
  const kept = (): number => [...pages.values()].reduce((n, p) => n + p.maxCount, 0);
  const readBehind = (after: Position, maxCount: number): Promise<RecordedEvent[]> => {
    const key = formatPosition(after);
    let page = pages.get(key);
    if (!page || page.maxCount < maxCount) {
      if (page) forget(key, page);
      const fresh: Page = { maxCount, read: store.readAll({ after, maxCount }), served: 0 };
      fresh.read.then(
        (events) => events.length < maxCount && forget(key, fresh),
        () => forget(key, fresh),
      );
      pages.set(key, (page = fresh));
      while (kept() > maxPaged) forget(...pages.entries().next().value!);
    }
    page.served += 1;
    if (page.served >= followers) forget(key, page);
    return page.read.then((events) => events.slice(0, maxCount));
  };
  let followersBehind = 0;
  const countBehind = (delta: number): void => {
    followersBehind += delta;
    if (followersBehind === 0) pages.clear();
  };

  const closeFeed = async (): Promise<void> => {
    const f = feed;
    feed = undefined;
    if (!f) return;
    f.controller.abort();
    for (const w of [...f.grew]) w();
    await f.ready;
    await f.subscription?.done.catch(() => undefined);
  };

  const subscribe = (o: SubscriptionOptions): Subscription => {
    if (closed) throw new Error('event store is closed');
    const batchSize = o.batchSize ?? 500;
    followers += 1;
    feed ??= openFeed();
    const f = feed;

    const grown = (after: Position, abort: AbortSignal): Promise<void> =>
      new Promise((resolve) => {
        const last = f.buffer.at(-1)?.position ?? f.base;
        if (abort.aborted || f.controller.signal.aborted || (last && comparePositions(last, after) > 0)) return resolve();
        const done = (): void => {
          f.grew.delete(done);
          abort.removeEventListener('abort', done);
          resolve();
        };
        f.grew.add(done);
        abort.addEventListener('abort', done, { once: true });
      });

    const run = async (abort: AbortSignal): Promise<void> => {
      let after = o.after;
      let behind = false;
      try {
        await f.ready;
        while (!abort.aborted && !f.controller.signal.aborted) {
          let events: RecordedEvent[];
          const wasBehind: boolean = behind;
          behind = f.base !== undefined && comparePositions(after, f.base) < 0;
          if (behind !== wasBehind) countBehind(behind ? 1 : -1);
          if (behind) {
            events = await readBehind(after, batchSize);
          } else {
            const from = firstAfter(f.buffer, after);
            events = f.buffer.slice(from, from + batchSize);
          }
          if (abort.aborted) break;
          if (events.length === 0) {
            await grown(after, abort);
            continue;
          }
          await o.onEvents(events);
          after = events.at(-1)!.position;
        }
      } finally {
        if (behind) countBehind(-1);
        followers -= 1;
        if (followers === 0 && feed === f) await closeFeed();
      }
    };
    return runSubscription(o, run);
  };

  return {
    kind: store.kind,
    claimsKeys: store.claimsKeys,
    appendConcurrency: store.appendConcurrency,
    append: (r) => store.append(r),
    appendMany: (r) => store.appendMany(r),
    readStream: (id, o) => store.readStream(id, o),
    readStreamBackward: (id, o) => store.readStreamBackward(id, o),
    readStreamByKeys: (id, keys, o) => store.readStreamByKeys(id, keys, o),
    readSnapshot: (id) => store.readSnapshot(id),
    writeSnapshot: (id, s) => store.writeSnapshot(id, s),
    readAll: (o) => store.readAll(o),
    headPosition: () => store.headPosition(),
    subscribe,
    ping: () => store.ping(),
    close: async () => {
      closed = true;
      await closeFeed();
    },
  };
};
