import type pg from 'pg';
import { startSealer } from '../audit/seal.js';
import { createRates } from '../commands/rates.js';
import type { ServerEventBus } from '../infra/bus.js';
import type { Config } from '../infra/config.js';
import type { EventStore } from '../infra/event-store/event-store.port.js';
import { createNotifier } from '../infra/event-store/postgres/postgres.wake-up.js';
import { shareSubscriptions } from '../infra/follow/shared-subscriptions.js';
import { createWakeSignal } from '../infra/follow/wake-signal.js';
import { runWhileLeader } from '../infra/leader.js';
import type { Logger } from '../infra/logger.js';
import { allProjections } from '../read-models/all-projections.js';
import { startProjector, type Projector } from '../projections/index.js';
import { startLedgerPublisher } from '../realtime/server-event-publisher.js';

/** What follows the store in the `projector` role: the realtime publisher, the read models and the sealer. */
export type FollowerName = 'publisher' | 'projector' | 'sealer';

export type FollowersDeps = Readonly<{
  config: Pick<Config, 'feeds' | 'audit'>;
  pool: pg.Pool;
  store: EventStore;
  bus: ServerEventBus;
  logger: Logger;
  sealKey?: Buffer;
  only?: readonly FollowerName[];
  coalesceMs?: number;
  onBatch?: () => void;
}>;

export type Followers = Readonly<{ projector: Projector | undefined; stop: () => Promise<void> }>;

/** Stopped in reverse order of start; a failure to start stops what had started and rethrows. */
export const startFollowers = async (deps: FollowersDeps): Promise<Followers> => {
  const { pool, logger } = deps;
  const runs = (name: FollowerName): boolean => deps.only?.includes(name) ?? true;
  const stops: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    for (const s of stops.reverse()) await s().catch((error: unknown) => logger.warn({ err: error }, 'error while stopping a follower'));
    stops.length = 0;
  };
  try {
    // One read of new events for all of them.
    const followed = shareSubscriptions(deps.store, { logger });
    stops.push(() => followed.close());
    if (runs('publisher')) {
      // One publisher among projector replicas: two would send every public feed message twice.
      const child = logger.child({ component: 'realtime-publisher' });
      const publisher = await runWhileLeader({
        pool,
        name: 'realtime-publisher',
        logger: child,
        start: () =>
          startLedgerPublisher({
            store: followed,
            pool,
            bus: deps.bus,
            rates: createRates({ pool }),
            feeds: deps.config.feeds,
            logger: child,
          }),
      });
      stops.push(publisher.stop);
    }
    let projector: Projector | undefined;
    if (runs('projector')) {
      // The projectors coalesce new events under load; a read waiting on them, in any process, hurries them (NOTIFY).
      const hurry = createWakeSignal();
      const readersWaiting = createNotifier({ pool, channel: 'read_models_wanted', signal: hurry, logger });
      readersWaiting.acquire();
      stops.push(() => readersWaiting.close());
      const started = startProjector({
        store: followed,
        pool,
        projections: allProjections,
        hurry,
        coalesceMs: deps.coalesceMs,
        onBatch: deps.onBatch,
        logger: logger.child({ component: 'projector' }),
      });
      stops.push(() => started.stop());
      projector = started;
      logger.info({ role: 'projector', projections: allProjections.length }, 'projector: following the event store into read models');
    }
    if (runs('sealer')) {
      if (!deps.sealKey) throw new Error('the sealer needs its key');
      // Tamper evidence: the sealer chains a hash over every stored event and checkpoints the global chain
      // (docs/audit.md). Each checkpoint goes to the log as well, so that it is anchored outside the database.
      const sealer = startSealer({
        store: followed,
        pool,
        key: deps.sealKey,
        checkpointEvery: deps.config.audit.sealCheckpointEvery,
        logger: logger.child({ component: 'sealer' }),
        onCheckpoint: (c) =>
          logger.info(
            { sealedCount: String(c.sealedCount), position: c.position, chainHash: c.chainHash.toString('hex') },
            'ledger seal checkpoint',
          ),
      });
      stops.push(sealer.stop);
    }
    return { projector, stop };
  } catch (error) {
    await stop();
    throw error;
  }
};
