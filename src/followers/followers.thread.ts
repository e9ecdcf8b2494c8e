import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ServerEventBus } from '../infra/bus.js';
import { comparePositions, parsePosition, type Position } from '../infra/event-store/event-store.port.js';
import { stdout, type Logger } from '../infra/logger.js';
import type { LocalProgress } from '../projections/read-model-waiter.js';
import type { FollowersThreadData, FromFollowers, ToFollowers } from './followers.protocol.js';

export type FollowersThreadOptions = FollowersThreadData &
  Readonly<{
    /** Where the thread's server events go: the process's own bus, which its gateway (or Redis) reads. */
    bus: ServerEventBus;
    logger: Logger;
    readModels: readonly string[];
    restartDelayMs?: number;
    maxRestartDelayMs?: number;
  }>;

/** The followers on a worker thread: their batches never hold up this thread's requests. Progress is reported back per batch. */
export type FollowersThread = LocalProgress & Readonly<{ follows(name: string): boolean; hurry(): void; stop(): Promise<void> }>;

const ownFile = fileURLToPath(import.meta.url);
const workerFile = new URL(`./followers.worker${extname(ownFile)}`, import.meta.url);

/** From TypeScript sources (tsx, a test runner) the thread registers tsx before it loads its entry: a loader is not inherited. */
const newWorker = (workerData: FollowersThreadData): Worker => {
  if (extname(ownFile) !== '.ts') return new Worker(workerFile, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(workerFile.href)}); })`;
  return new Worker(entry, { eval: true, workerData });
};

type Waiter = Readonly<{ names: readonly string[]; position: Position; resolve: () => void; reject: (e: Error) => void }>;

/** Resolves once the thread's followers have started; rejects when they cannot (the service must not run without them). */
export const startFollowersThread = async (o: FollowersThreadOptions): Promise<FollowersThread> => {
  const { logger, bus, readModels, restartDelayMs, maxRestartDelayMs, ...data } = o;
  const progress = new Map<string, Position>();
  const waiters = new Set<Waiter>();
  const followed = new Set(readModels);
  let stopping = false;
  let worker: Worker | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  const firstDelay = restartDelayMs ?? 1_000;
  let delay = firstDelay;

  const reached = (names: readonly string[], position: Position): boolean =>
    names.every((n) => {
      const at = progress.get(n);
      return at !== undefined && comparePositions(at, position) >= 0;
    });
  const settle = (): void => {
    for (const w of waiters)
      if (reached(w.names, w.position)) {
        waiters.delete(w);
        w.resolve();
      }
  };

  const spawn = (): Promise<void> =>
    new Promise((resolve, reject) => {
      let started = false;
      const w = newWorker(data);
      worker = w;
      const handle = (m: FromFollowers): void => {
        switch (m.t) {
          case 'progress':
            for (const [name, at] of Object.entries(m.at)) progress.set(name, parsePosition(at));
            settle();
            return;
          case 'bus':
            bus.publish(m.eventName, m.message).catch((error: unknown) => logger.warn({ err: error }, 'server event not published'));
            return;
          case 'log':
            stdout().write(m.line);
            return;
          case 'ready':
            started = true;
            delay = firstDelay;
            resolve();
            return;
          case 'failed':
            if (!started) reject(new Error(`followers thread: ${m.message}`));
            return;
        }
      };
      w.on('message', (batch: readonly FromFollowers[]) => batch.forEach(handle));
      w.on('error', (error) => logger.error({ err: error }, 'followers thread failed'));
      w.on('exit', (code) => {
        if (worker === w) worker = undefined;
        if (!started) return reject(new Error(`followers thread exited with code ${code} before it started`));
        // A bug or a lost resource ended it: the read models stop moving, so start it again, later each time it fails.
        if (!stopping) restartLater(`followers thread ended with code ${code}`);
      });
    });

  const restartLater = (reason: string): void => {
    logger.error({ reason, restartInMs: delay }, 'followers thread ended; restarting it');
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (!stopping) spawn().catch((error: unknown) => restartLater((error as Error).message));
    }, delay);
    delay = Math.min(delay * 2, maxRestartDelayMs ?? 30_000);
  };

  const post = (message: ToFollowers): void => worker?.postMessage(message);
  await spawn();

  return {
    progress: (name) => progress.get(name),
    follows: (name) => followed.has(name),
    hurry: () => post({ t: 'hurry' }),
    // As a projector's own: read models it does not build are not waited for.
    waitForModels: (all, position) =>
      new Promise<void>((resolve, reject) => {
        if (stopping) return reject(new Error('followers thread stopped'));
        const names = all.filter((n) => followed.has(n));
        if (reached(names, position)) return resolve();
        waiters.add({ names, position, resolve, reject });
      }),
    stop: async () => {
      stopping = true;
      clearTimeout(restartTimer);
      for (const w of waiters) w.reject(new Error('followers thread stopped'));
      waiters.clear();
      const w = worker;
      if (!w) return;
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      post({ t: 'stop' });
      // Its own stop waits for batches in flight; past this a stuck one is cut short (its transaction rolls back).
      const timer = setTimeout(() => void w.terminate(), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
};
