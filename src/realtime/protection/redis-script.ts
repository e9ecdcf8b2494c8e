import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export type LuaScript = Readonly<{ source: string; sha: string }>;

/** Effects replication (needed on Redis 5/6 before a write after TIME) and `now` from Redis, so every gateway uses one clock. */
const PRELUDE = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;

export const luaScript = (body: string): LuaScript => {
  const source = `${PRELUDE}${body}`;
  return { source, sha: createHash('sha1').update(source).digest('hex') };
};

/** Falls back to EVAL once when Redis does not know the script yet (new server, SCRIPT FLUSH). */
export const runScript = async (
  redis: Redis,
  script: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> => {
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
};
