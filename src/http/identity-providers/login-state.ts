import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type pg from 'pg';
import type { Logger } from '../../infra/logger.js';
import type { Migration } from '../../infra/migrate.js';
import { HttpError } from '../http-errors.js';
import type { ExternalIdentity } from '../../auth/use-cases/identity-sign-in.js';

/**
 * Called once per successful login; it owns the response (user, session, cookies, redirect); what it throws goes to the
 * error handler. `linkUserId`: the flow was started from that user's signed-in session, to link the identity to them.
 */
export type OnIdentity = (identity: ExternalIdentity, req: Request, res: Response, linkUserId?: number) => Promise<void>;

export type LoginRecord = Readonly<Record<string, string | number>>;

/** Per-login records of the redirect flows, each readable once. */
export type LoginStateStore = Readonly<{
  put: (id: string, record: LoginRecord, ttlMs: number) => Promise<void>;
  /** The record and its removal in one step: a second take of the same id, or a take after expiry, finds nothing. */
  take: (id: string) => Promise<LoginRecord | undefined>;
}>;

/** Values that may be accepted once only (OpenID 2.0 response nonces). */
export type SeenNonceStore = Readonly<{
  /** True the first time a key is presented; false while an earlier presentation is remembered (for ttlMs). */
  firstSighting: (key: string, ttlMs: number) => Promise<boolean>;
}>;

export const loginStatesMigration: Migration = {
  id: '0200_login_states',
  sql: `
    -- Short-lived, single-use records of the identity-provider redirect flows ('state:' ids) and
    -- response nonces already accepted ('nonce:' ids). Rows past expires_at are dead and swept.
    CREATE TABLE login_states (
      id text PRIMARY KEY,
      data jsonb NOT NULL,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX login_states_expires_at_idx ON login_states (expires_at);
  `,
};

const SWEEP_EVERY = 100;

/** Deletes expired rows every SWEEP_EVERY writes, so that abandoned logins do not pile up. */
const sweeper = (pool: pg.Pool): (() => Promise<void>) => {
  let writes = 0;
  return async () => {
    writes += 1;
    if (writes % SWEEP_EVERY === 0) await pool.query('DELETE FROM login_states WHERE expires_at < now()');
  };
};

export const createPostgresLoginStateStore = (pool: pg.Pool): LoginStateStore => {
  const sweep = sweeper(pool);
  return {
    put: async (id, record, ttlMs) => {
      await pool.query(`INSERT INTO login_states (id, data, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')`, [
        `state:${id}`,
        JSON.stringify(record),
        ttlMs,
      ]);
      await sweep();
    },
    take: async (id) => {
      const { rows } = await pool.query<{ data: LoginRecord; live: boolean }>(
        'DELETE FROM login_states WHERE id = $1 RETURNING data, expires_at > now() AS live',
        [`state:${id}`],
      );
      const row = rows[0];
      return row?.live ? row.data : undefined;
    },
  };
};

export const createPostgresSeenNonceStore = (pool: pg.Pool): SeenNonceStore => {
  const sweep = sweeper(pool);
  return {
    firstSighting: async (key, ttlMs) => {
      // Inserts, or takes over a row that has expired; returns nothing when a live row holds the key.
      const { rowCount } = await pool.query(
        `INSERT INTO login_states (id, data, expires_at) VALUES ($1, '{}'::jsonb, now() + $2 * interval '1 millisecond')
         ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data, expires_at = EXCLUDED.expires_at
         WHERE login_states.expires_at <= now()
         RETURNING id`,
        [`nonce:${key}`, ttlMs],
      );
      await sweep();
      return rowCount === 1;
    },
  };
};

type Entry<T> = { value: T; expiresAt: number };

/** A map with expiry and a size bound (oldest first out), for the in-memory stores. */
const expiringMap = <T>(now: () => number, maxEntries: number) => {
  const entries = new Map<string, Entry<T>>();
  const live = (key: string): Entry<T> | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now()) entries.delete(key);
    return entry && entry.expiresAt > now() ? entry : undefined;
  };
  const set = (key: string, value: T, ttlMs: number): void => {
    entries.delete(key);
    entries.set(key, { value, expiresAt: now() + ttlMs });
    if (entries.size % SWEEP_EVERY === 0) for (const k of entries.keys()) live(k);
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
  };
  return { entries, live, set };
};

export type MemoryStoreOptions = Readonly<{ now?: () => number; maxEntries?: number }>;

/** For a single process only: a second instance behind a load balancer would not see these records. */
export const createMemoryLoginStateStore = (options: MemoryStoreOptions = {}): LoginStateStore => {
  const map = expiringMap<LoginRecord>(options.now ?? Date.now, options.maxEntries ?? 100_000);
  return {
    put: async (id, record, ttlMs) => map.set(id, record, ttlMs),
    take: async (id) => {
      const entry = map.live(id);
      map.entries.delete(id);
      return entry?.value;
    },
  };
};

export const createMemorySeenNonceStore = (options: MemoryStoreOptions = {}): SeenNonceStore => {
  const map = expiringMap<true>(options.now ?? Date.now, options.maxEntries ?? 100_000);
  return {
    firstSighting: async (key, ttlMs) => {
      if (map.live(key)) return false;
      map.set(key, true, ttlMs);
      return true;
    },
  };
};

export const LOGIN_TTL_MS = 10 * 60_000;

/** The cookie that binds a pending login to the browser that started it; it holds only a random login id. */
export type LoginCookie = Readonly<{ name: string; path: string; secure: boolean }>;

const LOGIN_ID = /^[\w-]{43}$/;

export const newLoginId = (): string => randomBytes(32).toString('base64url');

export const setLoginCookie = (res: Response, cookie: LoginCookie, loginId: string): void => {
  res.append(
    'Set-Cookie',
    stringifySetCookie(cookie.name, loginId, {
      httpOnly: true,
      sameSite: 'lax',
      secure: cookie.secure,
      path: cookie.path,
      maxAge: LOGIN_TTL_MS / 1000,
    }),
  );
};

export const clearLoginCookie = (res: Response, cookie: LoginCookie): void => {
  res.append(
    'Set-Cookie',
    stringifySetCookie(cookie.name, '', {
      httpOnly: true,
      sameSite: 'lax',
      secure: cookie.secure,
      path: cookie.path,
      maxAge: 0,
    }),
  );
};

export const loginIdOf = (req: Request, cookie: LoginCookie): string | undefined => {
  const id = parseCookie(req.headers.cookie ?? '')[cookie.name];
  return id !== undefined && LOGIN_ID.test(id) ? id : undefined;
};

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** The browser's pending login, taken (single use) before anything else is looked at, or the reason there is none. */
export const takePendingLogin = async <T extends { createdAt: number }>(
  req: Request,
  cookie: LoginCookie,
  store: LoginStateStore,
  keyOf: (loginId: string) => string,
  schema: z.ZodType<T>,
  now: number,
): Promise<Readonly<{ pending: T }> | Readonly<{ refused: string }>> => {
  const loginId = loginIdOf(req, cookie);
  if (loginId === undefined) return { refused: 'no-login-cookie' };
  const parsed = schema.safeParse(await store.take(keyOf(loginId)));
  if (!parsed.success) return { refused: 'unknown-login' };
  if (now - parsed.data.createdAt > LOGIN_TTL_MS) return { refused: 'login-expired' };
  return { pending: parsed.data };
};

/** Compares a presented secret (state) with the stored one without leaking, through timing, how much matched. */
export const sameSecret = (presented: string | undefined, expected: string): boolean =>
  presented !== undefined && timingSafeEqual(digest(presented), digest(expected));

/** Where a refused login goes: a front-end page (`?error=AUTH_PROVIDER_FAILED`) when configured, else a 400 error body. */
export type FailureTarget = Readonly<{ failureRedirect?: string | undefined; logger?: Logger | undefined }>;

export const AUTH_PROVIDER_FAILED = 'AUTH_PROVIDER_FAILED';

/** One answer for every refusal, so a forger learns nothing of which check stopped them; the reason goes to the log. */
export const refuseLogin = (target: FailureTarget, provider: string, reason: string, res: Response, next: NextFunction): void => {
  target.logger?.warn({ provider, reason }, 'identity provider login refused');
  if (target.failureRedirect) {
    const url = new URL(target.failureRedirect);
    url.searchParams.set('error', AUTH_PROVIDER_FAILED);
    res.redirect(303, url.href);
    return;
  }
  next(new HttpError(400, AUTH_PROVIDER_FAILED, 'Sign-in with the identity provider failed'));
};

export const noStore = (res: Response): void => {
  res.setHeader('Cache-Control', 'no-store');
};

/** What every redirect flow takes from its wiring besides its own provider's settings. */
export type LoginFlowDeps = FailureTarget &
  Readonly<{
    stateStore: LoginStateStore;
    onIdentity: OnIdentity;
    /** The login cookie's Secure flag (default true); false only for http during local development. */
    secureCookie?: boolean;
    now?: () => number;
    /** Authenticates a signed-in session (never an API key): given, the provider also offers `GET /auth/<provider>/link`. */
    session?: RequestHandler;
  }>;

/** The user a link flow was started by, kept in the pending login (absent for a sign-in). */
export const LINK_USER_ID = 'linkUserId';

/** One provider's pending logins: started with a stored record and a cookie, then taken once and either refused or signed in. */
export const loginFlow = (provider: ExternalIdentity['provider'], cookiePath: string, deps: LoginFlowDeps) => {
  const now = deps.now ?? Date.now;
  const cookie: LoginCookie = { name: `${provider}_login`, path: cookiePath, secure: deps.secureCookie ?? true };
  const storeKey = (loginId: string): string => `${provider}:${loginId}`;
  return {
    start: async (res: Response, pending: LoginRecord): Promise<void> => {
      const loginId = newLoginId();
      await deps.stateStore.put(storeKey(loginId), pending, LOGIN_TTL_MS);
      setLoginCookie(res, cookie, loginId);
    },
    take: <T extends { createdAt: number }>(req: Request, schema: z.ZodType<T>) =>
      takePendingLogin(req, cookie, deps.stateStore, storeKey, schema, now()),
    refuse: (reason: string, res: Response, next: NextFunction, error?: unknown): void => {
      if (error !== undefined) deps.logger?.warn({ err: error, provider, reason }, 'identity provider call failed');
      clearLoginCookie(res, cookie);
      refuseLogin(deps, provider, reason, res, next);
    },
    signIn: async (identity: ExternalIdentity, req: Request, res: Response, linkUserId?: number): Promise<void> => {
      clearLoginCookie(res, cookie);
      await deps.onIdentity(identity, req, res, linkUserId);
    },
  };
};
