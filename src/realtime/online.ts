import type { Redis } from 'ioredis';
import type { Namespace } from 'socket.io';
import type { Logger } from '../infra/logger.js';
import type { GatewaySocket } from './delivery.js';

/** Distinct users plus anonymous sockets (nothing tells two anonymous visitors apart). */
export const localOnline = (events: Namespace): number => {
  const users = new Set<number>();
  let anonymous = 0;
  for (const s of events.sockets.values() as Iterable<GatewaySocket>) {
    const user = s.data.user;
    if (user) users.add(user.userId);
    else anonymous += 1;
  }
  return users.size + anonymous;
};

export const sumReports = (
  reports: Readonly<Record<string, string>>,
  now: number,
  maxAgeMs: number,
): { count: number; stale: string[] } => {
  let count = 0;
  const stale: string[] = [];
  for (const [gateway, value] of Object.entries(reports)) {
    const [n, at] = value.split(':').map(Number);
    if (!Number.isSafeInteger(n) || !Number.isFinite(at) || now - at! > maxAgeMs) stale.push(gateway);
    else count += n!;
  }
  return { count, stale };
};

export type OnlineDeps = Readonly<{
  events: Namespace;
  intervalMs: number;
  gatewayId: string;
  redis?: Redis | undefined;
  key: string;
  logger: Logger;
  /** The gateway checks for slow consumers here. */
  afterTick?: () => void;
}>;

export const startOnlineTicker = (deps: OnlineDeps): { stop: () => Promise<void>; tick: () => Promise<number> } => {
  const tick = async (): Promise<number> => {
    const local = localOnline(deps.events);
    let count = local;
    if (deps.redis) {
      try {
        const now = Date.now();
        await deps.redis.hset(deps.key, deps.gatewayId, `${local}:${now}`);
        const all = await deps.redis.hgetall(deps.key);
        const summed = sumReports(all, now, deps.intervalMs * 3);
        if (summed.stale.length > 0) await deps.redis.hdel(deps.key, ...summed.stale);
        count = summed.count;
      } catch (error) {
        deps.logger.warn({ err: error }, 'online count: redis unavailable, sending the local count');
      }
    }
    deps.events.emit('UsersOnlineUpdated', { count });
    deps.afterTick?.();
    return count;
  };
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = tick().catch((error: unknown) => deps.logger.warn({ err: error }, 'online count tick failed'));
  }, deps.intervalMs);
  timer.unref();
  return {
    tick,
    stop: async () => {
      clearInterval(timer);
      await running.catch(() => undefined);
      if (deps.redis) await deps.redis.hdel(deps.key, deps.gatewayId).catch(() => undefined);
    },
  };
};
