import pg from 'pg';
import type { WakeSignal } from '../../follow/wake-signal.js';

export type Logger = { warn(obj: object, msg?: string): void };

const NOTIFY_EVERY_MS = 10;
const RELISTEN_AFTER_MS = 1_000;

/** At most one NOTIFY per process every 10 ms after commits, no pg_notify per append; notifications only shorten the poll. */
export const createNotifier = (deps: { pool: pg.Pool; channel: string; signal: WakeSignal; logger?: Logger }) => {
  const { pool, channel, signal, logger } = deps;
  let closed = false;
  let notifyTimer: NodeJS.Timeout | undefined;
  let lastNotifyAt = 0;

  /** Called after an append has committed, so the NOTIFY always follows the events it announces. */
  const announce = (): void => {
    if (closed || notifyTimer) return;
    notifyTimer = setTimeout(
      () => {
        notifyTimer = undefined;
        lastNotifyAt = Date.now();
        pool
          .query('SELECT pg_notify($1, $2)', [channel, ''])
          .catch((error: unknown) => logger?.warn({ err: error, channel }, 'event store NOTIFY failed'));
      },
      Math.max(0, lastNotifyAt + NOTIFY_EVERY_MS - Date.now()),
    );
    notifyTimer.unref();
  };

  let users = 0;
  let listener: Promise<pg.Client | undefined> | undefined;
  let relistenTimer: NodeJS.Timeout | undefined;
  let active: pg.Client | undefined;

  const connect = async (): Promise<pg.Client | undefined> => {
    const client = new pg.Client(pool.options);
    active = client;
    client.on('notification', () => signal.wake());
    client.on('error', (error) => {
      client.end().catch(() => undefined);
      if (active !== client) return;
      active = undefined;
      logger?.warn({ err: error, channel }, 'event store LISTEN connection failed; polling only until it is back');
      listener = undefined;
      if (users > 0 && !closed && !relistenTimer) {
        relistenTimer = setTimeout(() => {
          relistenTimer = undefined;
          if (users > 0 && !closed && !listener) listener = connect();
        }, RELISTEN_AFTER_MS);
        relistenTimer.unref();
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
      signal.wake(); // notifications sent while we were not listening are lost: re-poll once
      return client;
    } catch (error) {
      client.emit('error', error);
      return undefined;
    }
  };

  const stopListening = async (): Promise<void> => {
    clearTimeout(relistenTimer);
    relistenTimer = undefined;
    active = undefined;
    const pending = listener;
    listener = undefined;
    const client = await pending;
    await client?.end().catch(() => undefined);
  };

  return {
    announce,
    acquire: (): void => {
      users += 1;
      if (users === 1 && !closed && !listener) listener = connect();
    },
    release: async (): Promise<void> => {
      users -= 1;
      if (users === 0) await stopListening();
    },
    close: async (): Promise<void> => {
      closed = true;
      clearTimeout(notifyTimer);
      notifyTimer = undefined;
      await stopListening();
    },
  };
};

export type Notifier = ReturnType<typeof createNotifier>;
