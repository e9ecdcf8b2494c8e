import { parseCookie, stringifySetCookie } from 'cookie';
import type { Request, Response } from 'express';

export const ACCESS_COOKIE = 'access_token';
export const REFRESH_COOKIE = 'refresh_token';
/** Legacy alias written by the admin front end; read only on the back office. */
export const LEGACY_ACCESS_COOKIE = 'jwt_access_token';

export type CookiePolicy = Readonly<{ secure: boolean; accessMaxAgeSeconds: number; refreshMaxAgeSeconds: number }>;

const base = (policy: CookiePolicy) => ({ httpOnly: true, sameSite: 'lax' as const, path: '/', secure: policy.secure });

export const setAuthCookies = (res: Response, policy: CookiePolicy, tokens: Readonly<{ accessToken: string; refreshToken: string }>): void => {
  res.append('Set-Cookie', stringifySetCookie({ name: ACCESS_COOKIE, value: tokens.accessToken, ...base(policy), maxAge: policy.accessMaxAgeSeconds }));
  res.append('Set-Cookie', stringifySetCookie({ name: REFRESH_COOKIE, value: tokens.refreshToken, ...base(policy), maxAge: policy.refreshMaxAgeSeconds }));
};

export const clearAuthCookies = (res: Response, policy: CookiePolicy): void => {
  for (const name of [ACCESS_COOKIE, REFRESH_COOKIE]) res.append('Set-Cookie', stringifySetCookie({ name, value: '', ...base(policy), maxAge: 0 }));
};

export const readCookie = (req: Request, name: string): string | undefined => {
  const header = req.headers.cookie;
  return header ? parseCookie(header)[name] : undefined;
};
