import { comparePositions, type Position } from '../event-store/event-store.port.js';

export type FollowLogger = { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };

export type FollowRun = Readonly<{
  signal: AbortSignal;
  /** Reports the position everything up to which is applied (resolves waiters). */
  advance: (position: Position) => void;
  succeeded: () => void;
}>;

export type FollowLoopOptions = Readonly<{
  name: string;
  /** One run: read the stored start, follow the store, apply batches; returns when stopped, throws to restart. */
  run: (ctx: FollowRun) => Promise<void>;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  logger?: FollowLogger;
  onFailure?: (error: unknown) => void;
  planned?: (error: unknown) => boolean;
}>;

export type FollowLoop = Readonly<{
  done: Promise<void>;
  stop: () => Promise<void>;
  position: () => Position | undefined;
  waitFor: (position: Position) => Promise<void>;
  signal: AbortSignal;
}>;

export const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

/** Shared follow-the-store loop: reruns `run` from the stored checkpoint after any failure, with doubling backoff. */
export const startFollowLoop = (o: FollowLoopOptions): FollowLoop => {
  const firstDelay = o.retryDelayMs ?? 100;
  const maxDelay = o.maxRetryDelayMs ?? 5_000;
  const stopping = new AbortController();
  const waiters = new Set<{ position: Position; resolve: () => void; reject: (e: Error) => void }>();
  let at: Position | undefined;
  let delay = firstDelay;

  const advance = (position: Position): void => {
    at = position;
    for (const w of waiters) {
      if (comparePositions(position, w.position) >= 0) {
        waiters.delete(w);
        w.resolve();
      }
    }
  };
  const ctx: FollowRun = {
    signal: stopping.signal,
    advance,
    succeeded: () => {
      delay = firstDelay;
    },
  };

  const loop = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      try {
        await o.run(ctx);
      } catch (error) {
        if (stopping.signal.aborted) break;
        o.onFailure?.(error);
        const level = o.planned?.(error) ? 'warn' : 'error';
        o.logger?.[level]({ err: error, follower: o.name, retryInMs: delay }, `${o.name}: restarting from the stored checkpoint`);
        await sleep(delay, stopping.signal);
        delay = Math.min(delay * 2, maxDelay);
      }
    }
    for (const w of waiters) w.reject(new Error(`${o.name} stopped`));
    waiters.clear();
  };
  const done = loop();

  return {
    done,
    signal: stopping.signal,
    stop: async () => {
      stopping.abort();
      await done;
    },
    position: () => at,
    waitFor: (position) => {
      if (at && comparePositions(at, position) >= 0) return Promise.resolve();
      if (stopping.signal.aborted) return Promise.reject(new Error(`${o.name} stopped`));
      return new Promise((resolve, reject) => waiters.add({ position, resolve, reject }));
    },
  };
};
