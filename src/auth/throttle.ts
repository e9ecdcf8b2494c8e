import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from '../infra/redis.js';
import type { AppError } from '../shared/app-error.js';
import { tooManyAttempts } from './auth.errors.js';

export type ThrottleConfig = Readonly<{
  /** Failed attempts per account (e-mail or user) within the window before it is blocked. */
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  windowSeconds: number;
}>;

export type Throttle = Readonly<{
  /** The refusal (with its Retry-After) when the account or the address is blocked. */
  check(account: string, address: string): Promise<AppError | undefined>;
  fail(account: string, address: string): Promise<void>;
  succeed(account: string): Promise<void>;
}>;

/** Brute-force protection: failures counted per account and per address; Redis when configured, so replicas share counts. */
export const createThrottle = (config: ThrottleConfig, redis?: Redis): Throttle => {
  const make = (keyPrefix: string, points: number): RateLimiterAbstract => {
    const opts = { keyPrefix, points, duration: config.windowSeconds, blockDuration: config.windowSeconds };
    return redis ? new RateLimiterRedis({ ...opts, storeClient: redis, insuranceLimiter: new RateLimiterMemory(opts) }) : new RateLimiterMemory(opts);
  };
  const byAccount = make('auth_fail_account', config.maxFailuresPerAccount);
  const byAddress = make('auth_fail_ip', config.maxFailuresPerAddress);

  const blocked = (res: RateLimiterRes | null, limit: number): number | undefined =>
    res && res.consumedPoints >= limit ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : undefined;

  return {
    check: async (account, address) => {
      const [a, b] = await Promise.all([byAccount.get(account), byAddress.get(address)]);
      const wait = Math.max(blocked(a, config.maxFailuresPerAccount) ?? 0, blocked(b, config.maxFailuresPerAddress) ?? 0);
      return wait > 0 ? tooManyAttempts(wait) : undefined;
    },
    fail: async (account, address) => {
      // consume rejects once the limit is passed; the block is what we want, not an error.
      await Promise.all([byAccount.consume(account).catch(() => undefined), byAddress.consume(address).catch(() => undefined)]);
    },
    succeed: async (account) => {
      await byAccount.delete(account);
    },
  };
};
