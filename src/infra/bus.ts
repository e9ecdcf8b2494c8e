import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';

/** Channel of a server event for clients (decisions.md): gateways subscribe and emit the bare name. */
export const serverChannel = (eventName: string): string => `server_channel_event.${eventName}`;

export type ServerEventBus = Readonly<{
  publish: (eventName: string, message: Readonly<Record<string, unknown>>) => Promise<void>;
  subscribe: (handler: (eventName: string, message: Record<string, unknown>) => void) => Promise<() => Promise<void>>;
  /** Runs `handler` after a lost connection is back (messages meanwhile were missed); absent on the in-process bus. */
  onResubscribed?: (handler: () => void) => () => void;
}>;

/** Across processes through Redis pub/sub; `subscriber` must be a connection of its own (it enters subscriber mode). */
export const createRedisBus = (publisher: Redis, subscriber: Redis, prefix = ''): ServerEventBus => ({
  publish: async (eventName, message) => {
    await publisher.publish(prefix + serverChannel(eventName), JSON.stringify(message));
  },
  subscribe: async (handler) => {
    const pattern = prefix + serverChannel('*');
    const listener = (received: string, channel: string, text: string): void => {
      if (received !== pattern) return; // another subscription on the same connection
      handler(channel.slice(prefix.length + serverChannel('').length), JSON.parse(text) as Record<string, unknown>);
    };
    subscriber.on('pmessage', listener);
    await subscriber.psubscribe(pattern);
    return async () => {
      subscriber.off('pmessage', listener);
      await subscriber.punsubscribe(pattern);
    };
  },
  onResubscribed: (handler) => {
    let lost = false;
    const onClose = (): void => {
      lost = true;
    };
    // ioredis re-sends the subscriptions on 'ready'; the PING answers after them, so the handler runs once they hold.
    const onReady = (): void => {
      if (!lost) return;
      lost = false;
      subscriber.ping().then(handler, () => {
        lost = true;
      });
    };
    subscriber.on('close', onClose);
    subscriber.on('ready', onReady);
    return () => {
      subscriber.off('close', onClose);
      subscriber.off('ready', onReady);
    };
  },
});

/** Single-process mode (no REDIS_URL). */
export const createLocalBus = (): ServerEventBus => {
  const emitter = new EventEmitter();
  return {
    publish: async (eventName, message) => {
      emitter.emit('event', eventName, message);
    },
    subscribe: async (handler) => {
      emitter.on('event', handler);
      return async () => {
        emitter.off('event', handler);
      };
    },
  };
};
