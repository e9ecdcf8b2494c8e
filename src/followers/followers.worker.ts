import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../infra/config.js';
import { openEventStore } from '../infra/event-store/open-event-store.js';
import { formatPosition } from '../infra/event-store/event-store.port.js';
import { createLogger } from '../infra/logger.js';
import { createPool } from '../infra/pg.js';
import { allProjections } from '../read-models/all-projections.js';
import { type Projector } from '../projections/index.js';
import { startFollowers } from './followers.js';
import type { FromFollowers, ToFollowers, FollowersThreadData } from './followers.protocol.js';

const port = parentPort!;
const data = workerData as FollowersThreadData;
const outbox: FromFollowers[] = [];
const flush = (): void => {
  if (outbox.length > 0) port.postMessage(outbox.splice(0));
};
/** Sent together once per turn of this loop: a busy ledger's server events would otherwise cost a message each. */
const send = (message: FromFollowers): void => {
  if (outbox.push(message) === 1) setImmediate(flush);
};
const PROGRESS_EVERY_MS = 200;

const config = loadConfig();
const logger = createLogger({ level: config.logLevel, destination: { write: (line: string) => send({ t: 'log', line }) } }).child({
  thread: 'followers',
});
const pool = createPool({ connectionString: data.databaseUrl, schema: data.schema, max: 10, applicationName: 'casino-ledger:followers' });
pool.on('error', (error) => logger.warn({ err: error }, 'idle PostgreSQL connection failed'));

let progressQueued = false;
let lastSent = '';
const reportProgress = (projector: Projector | undefined): void => {
  const at: Record<string, string> = {};
  for (const p of allProjections) {
    const position = projector?.progress(p.name);
    if (position) at[p.name] = formatPosition(position);
  }
  const text = JSON.stringify(at);
  if (text === lastSent) return;
  lastSent = text;
  send({ t: 'progress', at });
};

const run = async (): Promise<void> => {
  const store = await openEventStore(config, { pool, logger });
  const bus = {
    publish: async (eventName: string, message: Readonly<Record<string, unknown>>) => send({ t: 'bus', eventName, message }),
    subscribe: () => Promise.reject(new Error('the followers thread only publishes')),
  };
  const started: { projector?: Projector } = {};
  const followers = await startFollowers({
    config,
    pool,
    store,
    bus,
    logger,
    sealKey: data.sealKey ? Buffer.from(data.sealKey) : undefined,
    only: data.only,
    coalesceMs: data.coalesceMs,
    onBatch: () => {
      if (progressQueued) return;
      progressQueued = true;
      setImmediate(() => {
        progressQueued = false;
        reportProgress(started.projector);
      });
    },
  });
  started.projector = followers.projector;
  // Read models with nothing new run no batch: where they start is reported all the same.
  setInterval(() => reportProgress(started.projector), PROGRESS_EVERY_MS).unref();
  port.on('message', (message: ToFollowers) => {
    if (message.t === 'hurry') followers.projector?.hurry();
    if (message.t === 'stop')
      void (async () => {
        await followers.stop();
        await store.close().catch((error: unknown) => logger.warn({ err: error }, 'error while closing the event store'));
        await pool.end().catch(() => undefined);
        flush();
        process.exit(0); // ends this thread only
      })();
  });
  send({ t: 'ready' });
};

run().catch(async (error: unknown) => {
  logger.error({ err: error }, 'followers thread failed to start');
  await pool.end().catch(() => undefined);
  send({ t: 'failed', message: error instanceof Error ? error.message : String(error) });
  flush();
  process.exit(1);
});
