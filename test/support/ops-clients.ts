import { randomBytes } from 'node:crypto';

export const CAPTCHA_BYPASS = { 'x-captcha-token': 'local-captcha-bypass' } as const;

export type SignedUp = Readonly<{ userId: number; email: string; password: string; accessToken: string }>;

/** Signs a new user up through the public API (local captcha bypass); the answer carries the tokens. */
export const signUp = async (publicUrl: string, label = 'u'): Promise<SignedUp> => {
  const tag = randomBytes(4).toString('hex');
  const email = `${label}-${tag}@example.com`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const res = await fetch(`${publicUrl}/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...CAPTCHA_BYPASS },
    body: JSON.stringify({ email, password, username: `${label}${tag}`.slice(0, 16), country: 'DE' }),
  });
  const body = (await res.json()) as { user?: { id: number }; accessToken?: string };
  if (res.status !== 201 || !body.user || !body.accessToken) throw new Error(`sign-up answered ${res.status}: ${JSON.stringify(body)}`);
  return { userId: body.user.id, email, password, accessToken: body.accessToken };
};

/** Signs in through the public API; returns the access token from the access_token cookie. */
export const signIn = async (publicUrl: string, email: string, password: string): Promise<string> => {
  const res = await fetch(`${publicUrl}/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...CAPTCHA_BYPASS },
    body: JSON.stringify({ email, password }),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('access_token='));
  if (res.status !== 200 || !cookie) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  return cookie.slice('access_token='.length).split(';')[0]!;
};
