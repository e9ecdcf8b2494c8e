import type { Redis } from 'ioredis';
import { luaScript, runScript } from './redis-script.js';
import { DEFAULT_CONNECTION_SLOT_TTL_MS, DEFAULT_KEY_PREFIX, type ConnectionLimiter, type ProtectionSettings } from './types.js';

/** Drops expired slots (a dead gateway stopped refreshing them) first. KEYS: slots zset by expiry; ARGV: max, ttl, id. */
const ACQUIRE = luaScript(`
local max, ttl = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[3]) and redis.call('ZCARD', KEYS[1]) >= max then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
`);

const REFRESH = luaScript(`
local ttl = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], now + ttl, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
`);

/** Checked in engine.io's allowRequest, before the socket exists. */
export const createConnectionLimiter = (settings: ProtectionSettings, redis?: Redis): ConnectionLimiter =>
  redis ? redisLimiter(settings, redis) : memoryLimiter(settings);

type Held = Map<string, Set<string>>;

const hold = (held: Held, address: string, id: string): void => {
  const ids = held.get(address);
  if (ids) ids.add(id);
  else held.set(address, new Set([id]));
};

const drop = (held: Held, address: string, id: string): boolean => {
  const ids = held.get(address);
  if (!ids?.delete(id)) return false;
  if (ids.size === 0) held.delete(address);
  return true;
};

const memoryLimiter = (settings: ProtectionSettings): ConnectionLimiter => {
  const held: Held = new Map();
  return {
    acquire: async (address, id) => {
      const ids = held.get(address);
      if (ids?.has(id)) return true;
      if ((ids?.size ?? 0) >= settings.maxConnectionsPerIp) return false;
      hold(held, address, id);
      return true;
    },
    release: async (address, id) => {
      drop(held, address, id);
    },
    close: async () => {
      held.clear();
    },
  };
};

const redisLimiter = (settings: ProtectionSettings, redis: Redis): ConnectionLimiter => {
  const prefix = `${settings.keyPrefix ?? DEFAULT_KEY_PREFIX}conn:`;
  const ttl = settings.connectionSlotTtlMs ?? DEFAULT_CONNECTION_SLOT_TTL_MS;
  const report = (error: unknown): void => settings.onError?.(error);
  const keyOf = (address: string): string => `${prefix}{${address}}`;
  const held: Held = new Map();

  const heartbeat = (): void => {
    // Plain EVAL, written now: a later release (ZREM) reaches Redis after it, so a refresh never revives a released slot.
    for (const [address, ids] of held) {
      redis.eval(REFRESH.source, 1, keyOf(address), ttl, ...ids).catch(report);
    }
  };
  const timer = setInterval(heartbeat, Math.max(1, Math.floor(ttl / 3)));
  timer.unref();

  return {
    acquire: async (address, id) => {
      const ok = Number(await runScript(redis, ACQUIRE, [keyOf(address)], [settings.maxConnectionsPerIp, ttl, id])) === 1;
      if (ok) hold(held, address, id);
      return ok;
    },
    release: async (address, id) => {
      drop(held, address, id);
      await redis.zrem(keyOf(address), id);
    },
    close: async () => {
      clearInterval(timer);
      const slots = [...held].flatMap(([address, ids]) => [...ids].map((id) => [address, id] as const));
      held.clear();
      await Promise.all(slots.map(([address, id]) => redis.zrem(keyOf(address), id).catch(report)));
    },
  };
};
