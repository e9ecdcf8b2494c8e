import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { luaScript, runScript } from './redis-script.js';
import { DEFAULT_KEY_PREFIX, type MessageThrottle, type ProtectionSettings, type ThrottleVerdict } from './types.js';

const ALLOWED: ThrottleVerdict = { allowed: true };

/** KEYS: window, block. ARGV: ttl, limit, block, member. Returns 0 (accepted) or the ms left of the block. */
const HIT = luaScript(`
local ttl, limit, block = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local left = redis.call('PTTL', KEYS[2])
if left > 0 then return left end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
if redis.call('ZCARD', KEYS[1]) >= limit then
  redis.call('SET', KEYS[2], '1', 'PX', block)
  return block
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], ttl)
return 0
`);

type Window = { times: number[]; head: number; last: number; blockedUntil: number };

/** Sliding-window log, no fixed buckets, so no burst of twice the limit around a bucket boundary. */
export const createMessageThrottle = (settings: ProtectionSettings, redis?: Redis): MessageThrottle => {
  if (settings.throttlerDisabled) return { hit: async () => ALLOWED };
  return redis ? redisThrottle(settings, redis) : createMemoryMessageThrottle(settings);
};

const refuser =
  (settings: ProtectionSettings) =>
  (address: string, retryAfterMs: number): ThrottleVerdict => {
    settings.onThrottled?.(address);
    return { allowed: false, retryAfterMs };
  };

const redisThrottle = (settings: ProtectionSettings, redis: Redis): MessageThrottle => {
  const refuse = refuser(settings);
  const prefix = `${settings.keyPrefix ?? DEFAULT_KEY_PREFIX}throttle:`;
  // Window members must be unique across gateways: this instance's id and a counter.
  const instance = randomBytes(6).toString('base64url');
  let counter = 0;
  const args = [settings.throttlerTtlMs, settings.throttlerLimit, settings.throttlerBlockDurationMs] as const;
  return {
    hit: async (address) => {
      counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
      // The hash tag keeps both keys of an address in one cluster slot.
      const key = `${prefix}{${address}}`;
      const left = Number(await runScript(redis, HIT, [key, `${key}:block`], [...args, `${instance}:${counter.toString(36)}`]));
      return left > 0 ? refuse(address, left) : ALLOWED;
    },
  };
};

/** Ignores `throttlerDisabled`. */
export const createMemoryMessageThrottle = (settings: ProtectionSettings): MessageThrottle & Readonly<{ tracked: () => number }> => {
  const refuse = refuser(settings);
  const { throttlerTtlMs: ttl, throttlerLimit: limit, throttlerBlockDurationMs: block } = settings;
  const now = settings.now ?? Date.now;
  const windows = new Map<string, Window>();
  let lastSweep = now();

  /** At most once per window length. */
  const sweep = (at: number): void => {
    if (at - lastSweep < ttl) return;
    lastSweep = at;
    for (const [address, w] of windows) {
      if (w.last <= at - ttl && w.blockedUntil <= at) windows.delete(address);
    }
  };

  return {
    tracked: () => windows.size,
    hit: async (address) => {
      const at = now();
      sweep(at);
      let w = windows.get(address);
      if (!w) {
        w = { times: [], head: 0, last: -Infinity, blockedUntil: -Infinity };
        windows.set(address, w);
      }
      if (w.blockedUntil > at) return refuse(address, w.blockedUntil - at);
      if (w.times.length < limit) {
        w.times.push(at);
      } else {
        // The window is full unless the oldest of the last `limit` accepted messages has left it.
        if (w.times[w.head]! > at - ttl) {
          w.blockedUntil = at + block;
          return refuse(address, block);
        }
        w.times[w.head] = at;
        w.head = (w.head + 1) % limit;
      }
      w.last = at;
      return ALLOWED;
    },
  };
};
