import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../infra/logger.js';
import type { Redis } from '../infra/redis.js';
import type { AppError } from '../shared/app-error.js';
import { authError, tooManyAttempts } from './auth.errors.js';

export type CaptchaConfig = Readonly<{
  verifyUrl: string;
  secret: string | undefined;
  localBypassToken: string;
  appEnv: string;
  timeoutMs?: number;
}>;

export type CaptchaCheck = (token: string | undefined, ip: string | null, log?: Pick<Logger, 'warn'>) => Promise<AppError | undefined>;

/** Siteverify-style captcha check; the bypass literal passes only when APP_ENV=local; any failure refuses (fail closed). */
export const createCaptcha =
  (config: CaptchaConfig): CaptchaCheck =>
  async (token, ip, log) => {
    if (token === undefined || token === '') return authError('captchaMissing');
    if (token === config.localBypassToken) return config.appEnv === 'local' ? undefined : authError('captchaInvalid');
    if (!config.secret || token.length > 4096) return authError('captchaInvalid');
    const form = new URLSearchParams({ secret: config.secret, response: token, ...(ip ? { remoteip: ip } : {}) });
    let success = false;
    try {
      const res = await fetch(config.verifyUrl, { method: 'POST', body: form, signal: AbortSignal.timeout(config.timeoutMs ?? 5_000) });
      const body = (await res.json()) as { success?: unknown };
      success = res.ok && body.success === true;
    } catch (error) {
      log?.warn({ err: error }, 'captcha verification failed');
    }
    return success ? undefined : authError('captchaInvalid');
  };

export type ThrottleConfig = Readonly<{ maxFailuresPerAccount: number; maxFailuresPerAddress: number; windowSeconds: number }>;

export type Throttle = Readonly<{
  check(account: string, address: string): Promise<AppError | undefined>;
  fail(account: string, address: string): Promise<void>;
  succeed(account: string): Promise<void>;
}>;

/** Brute-force protection: failures counted per account and per address; Redis when configured, so replicas share counts. */
export const createThrottle = (config: ThrottleConfig, redis?: Redis): Throttle => {
  const make = (keyPrefix: string, points: number): RateLimiterAbstract => {
    const opts = { keyPrefix, points, duration: config.windowSeconds, blockDuration: config.windowSeconds };
    if (!redis) return new RateLimiterMemory(opts);
    return new RateLimiterRedis({ ...opts, storeClient: redis, insuranceLimiter: new RateLimiterMemory(opts) });
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
