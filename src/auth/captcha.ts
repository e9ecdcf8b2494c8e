import type { Request } from 'express';
import { authError } from '../http/errors.js';

export type CaptchaConfig = Readonly<{
  verifyUrl: string;
  secret: string | undefined;
  localBypassToken: string;
  appEnv: string;
  timeoutMs?: number;
}>;

export type CaptchaCheck = (req: Request) => Promise<void>;

/**
 * `x-captcha-token` checked against a siteverify-style endpoint (Turnstile, hCaptcha, reCAPTCHA):
 * form POST of secret, response, remoteip; JSON `{success}`. The bypass literal passes only when
 * APP_ENV=local. Any failure to get a clear yes, including a timeout, refuses (fail closed).
 */
export const createCaptcha = (config: CaptchaConfig): CaptchaCheck => async (req) => {
  const token = req.get('x-captcha-token');
  if (token === undefined || token === '') throw authError('captchaMissing');
  if (token === config.localBypassToken) {
    if (config.appEnv === 'local') return;
    throw authError('captchaInvalid');
  }
  if (!config.secret || token.length > 4096) throw authError('captchaInvalid');
  const form = new URLSearchParams({ secret: config.secret, response: token, ...(req.ip ? { remoteip: req.ip } : {}) });
  let success = false;
  try {
    const res = await fetch(config.verifyUrl, { method: 'POST', body: form, signal: AbortSignal.timeout(config.timeoutMs ?? 5_000) });
    const body = (await res.json()) as { success?: unknown };
    success = res.ok && body.success === true;
  } catch (error) {
    req.log.warn({ err: error }, 'captcha verification failed');
  }
  if (!success) throw authError('captchaInvalid');
};
