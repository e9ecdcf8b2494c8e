import { parseCookie, stringifySetCookie } from 'cookie';
import type { Request, Response } from 'express';
import { ACCESS_COOKIE } from '../../auth/tokens.js';

export { ACCESS_COOKIE };
export const REFRESH_COOKIE = 'refresh_token';
/** Legacy alias written by the admin front end; read only on the back office. */
export const LEGACY_ACCESS_COOKIE = 'jwt_access_token';

export type CookiePolicy = Readonly<{ secure: boolean; accessMaxAgeSeconds: number; refreshMaxAgeSeconds: number }>;

const base = (policy: CookiePolicy) => ({ httpOnly: true, sameSite: 'lax' as const, path: '/', secure: policy.secure });

type Tokens = Readonly<{ accessToken: string; refreshToken: string }>;

export const setAuthCookies = (res: Response, policy: CookiePolicy, tokens: Tokens): void => {
  const set = (name: string, value: string, maxAge: number) => res.append('Set-Cookie', stringifySetCookie({ name, value, ...base(policy), maxAge }));
  set(ACCESS_COOKIE, tokens.accessToken, policy.accessMaxAgeSeconds);
  set(REFRESH_COOKIE, tokens.refreshToken, policy.refreshMaxAgeSeconds);
};

export const clearAuthCookies = (res: Response, policy: CookiePolicy): void => {
  for (const name of [ACCESS_COOKIE, REFRESH_COOKIE]) {
    res.append('Set-Cookie', stringifySetCookie({ name, value: '', ...base(policy), maxAge: 0 }));
  }
};

export const readCookie = (req: Request, name: string): string | undefined => {
  const header = req.headers.cookie;
  return header ? parseCookie(header)[name] : undefined;
};

type CookieSettings = Readonly<{ secureCookies: boolean; accessTtlSeconds: number; refreshTtlSeconds: number }>;

export const cookiePolicy = (settings: CookieSettings): CookiePolicy =>
  ({ secure: settings.secureCookies, accessMaxAgeSeconds: settings.accessTtlSeconds, refreshMaxAgeSeconds: settings.refreshTtlSeconds });
