import type pg from 'pg';
import { z } from 'zod';
import type { Logger } from '../infra/logger.js';

/** A user's sockets (or one session's) must stop being that user's. */
export type Deauth = Readonly<{ userId: number; sessionId?: string; reason: 'SESSION_ENDED' | 'BANNED' }>;

/** Per schema, so parallel test schemas never cross. */
export const deauthChannel = (schema: string): string => `deauth:${schema}`;

const Notification = z.object({
  userId: z.coerce.number().int().positive(),
  sessionId: z.string().optional(),
  reason: z.enum(['SESSION_ENDED', 'BANNED']),
});

export type DeauthListenerDeps = Readonly<{
  pool: pg.Pool;
  logger: Logger;
  onDeauth: (d: Deauth) => void;
  /** Notifications sent while the listener was down are lost, so sweep. */
  onReconnect: () => void;
}>;

/** On its own connection. */
export const startDeauthListener = async (deps: DeauthListenerDeps): Promise<{ close: () => Promise<void> }> => {
  let client: pg.PoolClient | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const log = deps.logger;

  const onNotification = (msg: pg.Notification): void => {
    try {
      const parsed = Notification.safeParse(JSON.parse(msg.payload ?? ''));
      if (parsed.success) deps.onDeauth(parsed.data);
      else log.warn({ channel: msg.channel }, 'malformed deauth notification');
    } catch (error) {
      log.warn({ err: error }, 'deauth notification failed');
    }
  };

  const connect = async (delay: number): Promise<void> => {
    if (closed) return;
    let c: pg.PoolClient | undefined;
    try {
      c = await deps.pool.connect();
      const self = c;
      const lost = (error?: Error): void => {
        self.off('notification', onNotification);
        if (client !== self) return;
        client = undefined;
        self.release(error ?? true);
        if (closed) return;
        log.warn({ err: error }, 'deauth listener lost its connection; reconnecting');
        retry = setTimeout(() => void connect(100), 100);
      };
      self.on('error', lost);
      self.on('end', () => lost());
      self.on('notification', onNotification);
      const { rows } = await self.query<{ schema: string }>('SELECT current_schema() AS schema');
      await self.query(`LISTEN "${deauthChannel(rows[0]!.schema).replace(/"/g, '""')}"`);
      if (closed) {
        self.release(true);
        return;
      }
      client = self;
      deps.onReconnect();
    } catch (error) {
      c?.off('notification', onNotification);
      c?.release(true);
      if (closed) return;
      const next = Math.min(delay * 2, 5_000);
      log.warn({ err: error, retryInMs: next }, 'deauth listener cannot connect');
      retry = setTimeout(() => void connect(next), next);
    }
  };

  await connect(100);
  return {
    close: async () => {
      closed = true;
      clearTimeout(retry);
      const c = client;
      client = undefined;
      if (c) {
        c.off('notification', onNotification);
        // Destroy rather than return to the pool: the connection is still LISTENing.
        c.release(true);
      }
    },
  };
};
