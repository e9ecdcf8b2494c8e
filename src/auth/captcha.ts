import type { Logger } from '../infra/logger.js';
import type { AppError } from '../shared/app-error.js';
import { authError } from './auth.errors.js';

export type CaptchaConfig = Readonly<{
  verifyUrl: string;
  secret: string | undefined;
  localBypassToken: string;
  appEnv: string;
  timeoutMs?: number;
}>;

/** The refusal, or undefined when the token passed. */
export type CaptchaCheck = (token: string | undefined, ip: string | null, log?: Pick<Logger, 'warn'>) => Promise<AppError | undefined>;

/**
 * A captcha token checked against a siteverify-style endpoint (Turnstile, hCaptcha, reCAPTCHA):
 * form POST of secret, response, remoteip; JSON `{success}`. The bypass literal passes only when
 * APP_ENV=local. Any failure to get a clear yes, including a timeout, refuses (fail closed).
 */
export const createCaptcha = (config: CaptchaConfig): CaptchaCheck => async (token, ip, log) => {
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
