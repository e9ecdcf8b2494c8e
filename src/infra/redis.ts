import { Redis } from 'ioredis';
import type { Logger } from './logger.js';

export type { Redis };

export const createRedis = (url: string, logger: Logger, name = 'redis'): Redis => {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    connectTimeout: 2_000,
    connectionName: `casino-ledger:${name}`,
    // Capped at 1 s: a command issued during an outage waits at most two reconnect attempts (maxRetriesPerRequest), then fails.
    retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 1_000),
  });
  let healthy = true;
  client.on('error', (error: Error) => {
    if (healthy) logger.warn({ err: error, client: name }, 'redis connection error');
    healthy = false;
  });
  client.on('ready', () => {
    if (!healthy) logger.info({ client: name }, 'redis connection restored');
    healthy = true;
  });
  return client;
};

export const pingRedis = async (client: Redis): Promise<void> => {
  const answer = await client.ping();
  if (answer !== 'PONG') throw new Error(`unexpected PING answer: ${answer}`);
};

/** Closes the connection, waiting for replies in flight; never throws. */
export const closeRedis = async (client: Redis): Promise<void> => {
  if (client.status === 'end' || client.status === 'wait') {
    client.disconnect();
    return;
  }
  await client.quit().catch(() => client.disconnect());
};
