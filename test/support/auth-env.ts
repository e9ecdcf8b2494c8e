import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router, type Express } from 'express';
import type pg from 'pg';
import { createAuthKit, type AuthKit, type AuthSettings } from '../../src/auth/auth-kit.js';
import { createSignInWithIdentity, type ExternalIdentity } from '../../src/http/identity-providers/index.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { generateKeys } from '../../src/auth/sessions.js';
import { createLedger } from '../../src/commands/ledger.js';
import { createLimits } from '../../src/commands/limits.js';
import { createUsers, type Users } from '../../src/commands/users.js';
import type { Role, Permission } from '../../src/domain/user/permissions.js';
import type { AccessRegistry } from '../../src/http/access.js';
import { trackAppends } from '../../src/infra/event-store/append-tracker.js';
import { createAdminApp } from '../../src/http/admin-app.js';
import { createPublicApp } from '../../src/http/public-app.js';
import type { EventStore } from '../../src/infra/event-store/event-store.port.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { createLogger } from '../../src/infra/logger.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { startProjector, type Projector } from '../../src/projections/index.js';
import { CAPTCHA_SECRET, GOOD_CAPTCHA, startCaptchaStandIn, type CaptchaStandIn } from './captcha-server.js';
import { createTestDb, type TestDb, type TestDbOptions } from './db.js';
import { migrateAll } from '../../src/schema.js';

export { GOOD_CAPTCHA };
export const FRONTEND = 'http://front.test';
export const BYPASS = 'local-captcha-bypass';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Reply = Readonly<{ status: number; body: any; headers: Headers; cookies: Record<string, { value: string; raw: string }> }>;
export type CallOptions = Readonly<{ body?: unknown; headers?: Record<string, string>; cookies?: Record<string, string> }>;

const parseSetCookies = (headers: Headers): Reply['cookies'] =>
  Object.fromEntries(
    headers.getSetCookie().map((raw) => {
      const [pair] = raw.split(';');
      const i = pair!.indexOf('=');
      return [pair!.slice(0, i), { value: decodeURIComponent(pair!.slice(i + 1)), raw }];
    }),
  );

export const call = async (base: string, method: string, path: string, options: CallOptions = {}): Promise<Reply> => {
  const cookie = Object.entries(options.cookies ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');
  const res = await fetch(`${base}${path}`, {
    method,
    redirect: 'manual',
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(cookie ? { cookie } : {}),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers, cookies: parseSetCookies(res.headers) };
};

export type AuthEnv = Readonly<{
  db: TestDb;
  pool: pg.Pool;
  store: EventStore;
  users: Users;
  kit: AuthKit;
  ledger: ReturnType<typeof createLedger>;
  publicUrl: string;
  adminUrl: string;
  registry: AccessRegistry;
  captcha: CaptchaStandIn;
  /** Another public app on the same database with other settings. */
  publicWith: (over: Partial<AuthSettings>) => Promise<string>;
  /** Another back-office server on this env whose consistent reads wait at most `readConsistencyTimeoutMs`. */
  adminWithReadBound: (readConsistencyTimeoutMs: number) => Promise<string>;
  startProjector: () => Projector;
  /** A user created directly through the command side (fast), with roles and permissions. */
  makeUser: (opts?: {
    roles?: Role[];
    permissions?: Permission[];
    username?: string | null;
    password?: string;
  }) => Promise<{ id: number; email: string; username: string | null; password: string }>;
  close: () => Promise<void>;
}>;

let seq = 0;
export const unique = (prefix: string): string => `${prefix}${Date.now().toString(36)}${(++seq).toString(36)}`.slice(0, 16);
export const PASSWORD = 'correct horse battery staple';

export type AuthEnvOptions = TestDbOptions &
  Readonly<{
    /** How long the back office's consistent reads wait for the read models (the app's default without it). */
    readConsistencyTimeoutMs?: number;
    /** The ledger's clock (commands are decided, and back-office money actions happen, at its time). */
    clock?: () => Date;
  }>;

export const createAuthEnv = async (label: string, over: Partial<AuthSettings> = {}, options: AuthEnvOptions = {}): Promise<AuthEnv> => {
  const db = await createTestDb(label, { ownCluster: options.ownCluster });
  const pool = db.pool({ max: 12 });
  await migrateAll(pool);
  const store = trackAppends(createPostgresEventStore({ pool, pollIntervalMs: 50 }));
  const users = createUsers({ store, pool });
  const ledger = createLedger({
    store,
    pool,
    userExists: users.exists,
    canTransact: users.canTransact,
    betGuard: createLimits({ store, pool }).betGuard,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const captcha = await startCaptchaStandIn();
  const logger = createLogger({ level: 'silent' });
  const base: AuthSettings = {
    keys: await generateKeys(),
    mfaKey: Buffer.alloc(32, 7),
    accessTtlSeconds: 900,
    refreshTtlSeconds: 3600,
    mfaChallengeTtlSeconds: 300,
    captcha: { verifyUrl: captcha.url, secret: CAPTCHA_SECRET, localBypassToken: BYPASS, appEnv: 'staging' },
    throttle: { maxFailuresPerAccount: 1000, maxFailuresPerAddress: 100_000, windowSeconds: 900 },
    geoBlockedCountries: ['KP'],
    trustedCountryHeader: 'cf-ipcountry',
    allowedOrigins: [FRONTEND],
    secureCookies: true,
    frontendOrigin: FRONTEND,
  };
  const servers: Server[] = [];
  const projectors: Projector[] = [];
  const serve = async (app: Express): Promise<string> => {
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, () => resolve(s));
    });
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const publicWith = async (settingsOver: Partial<AuthSettings>) => {
    const kit = await createAuthKit({ users, pool, settings: { ...base, ...over, ...settingsOver } });
    // A stand-in for the identity-provider flows: they call signInWithIdentity after their own checks.
    const idp = Router().post('/test/identity-sign-in', (req, res) =>
      createSignInWithIdentity(kit)(req.body as ExternalIdentity, req, res),
    );
    return serve(createPublicApp({ logger, pool, store, auth: { kit, ledger }, routers: [idp] }));
  };
  const kit = await createAuthKit({ users, pool, settings: { ...base, ...over } });
  const registry: AccessRegistry = [];
  const publicUrl = await publicWith({});
  const adminUrl = await serve(
    createAdminApp({
      logger,
      pool,
      store,
      ledger,
      auth: kit,
      accessRegistry: registry,
      readConsistencyTimeoutMs: options.readConsistencyTimeoutMs,
    }),
  );
  const adminWithReadBound = (readConsistencyTimeoutMs: number): Promise<string> =>
    serve(createAdminApp({ logger, pool, store, ledger, auth: kit, accessRegistry: [], readConsistencyTimeoutMs }));
  const passwordHash = await hashPassword(PASSWORD);

  return {
    db,
    pool,
    store,
    users,
    kit,
    ledger,
    publicUrl,
    adminUrl,
    registry,
    captcha,
    publicWith,
    adminWithReadBound,
    startProjector: () => {
      const p = startProjector({ store, pool, projections: allProjections });
      projectors.push(p);
      return p;
    },
    makeUser: async (opts = {}) => {
      const username = opts.username === undefined ? unique('u') : opts.username;
      const email = `${unique('e')}@example.test`;
      const created = await users.register({
        email,
        username,
        passwordHash: opts.password ? await hashPassword(opts.password) : passwordHash,
        country: 'DE',
        referrerCode: null,
        marketingOptIn: false,
        provider: 'password',
        roles: opts.roles ?? ['User'],
        registration: { ip: null, userAgent: null, country: null, referrer: null },
      });
      if (created._tag === 'Left') throw new Error(created.left._tag);
      const id = created.right.userId;
      for (const permission of opts.permissions ?? []) await users.execute(id, { type: 'GrantPermission', data: { permission } }, null);
      return { id, email, username, password: opts.password ?? PASSWORD };
    },
    close: async () => {
      await Promise.all(projectors.map((p) => p.stop()));
      await Promise.all(
        servers.map(
          (s) =>
            new Promise((r) => {
              s.closeAllConnections();
              s.close(r);
            }),
        ),
      );
      await captcha.close();
      await store.close();
      await db.drop();
    },
  };
};

/** Signs in over HTTP (no MFA) and returns the session's tokens. */
export const signIn = async (env: AuthEnv, user: { email: string; password: string }, base = env.publicUrl) => {
  const reply = await call(base, 'POST', '/auth/sign-in', {
    body: { email: user.email, password: user.password },
    headers: { 'x-captcha-token': GOOD_CAPTCHA },
  });
  if (reply.status !== 200) throw new Error(`sign-in failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return { reply, accessToken: reply.cookies.access_token?.value ?? '', refreshToken: reply.cookies.refresh_token?.value ?? '' };
};

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

const TOTP_STEP_MS = 30_000;

/**
 * The current second for making TOTP codes, at least `marginMs` before the next 30 s step. The service accepts a code of one
 * step either side of its own clock, so the previous step's code (what a test enables MFA with, leaving the current step for
 * the sign-in) is refused once the service's clock has crossed a step change after the code was made.
 */
export const totpNow = async (marginMs = 5_000): Promise<number> => {
  const into = Date.now() % TOTP_STEP_MS;
  if (into > TOTP_STEP_MS - marginMs) await new Promise((resolve) => setTimeout(resolve, TOTP_STEP_MS - into + 20));
  return Math.floor(Date.now() / 1000);
};

/** Row counts of every table sign-up or sign-in writes: "nothing was created". */
export const footprint = async (pool: pg.Pool): Promise<Record<string, number>> => {
  const tables = ['events', 'user_keys', 'user_credentials', 'user_access', 'sessions', 'mfa_challenges_used'];
  const out: Record<string, number> = {};
  for (const t of tables) out[t] = Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${t}`)).rows[0]!.n);
  return out;
};

/** The settings the console's browser tests run with: APP_ENV=local (the captcha's local bypass), plain-HTTP cookies. */
export const LOCAL_CONSOLE: Partial<AuthSettings> = {
  captcha: { verifyUrl: 'http://127.0.0.1:9/unused', secret: undefined, localBypassToken: BYPASS, appEnv: 'local' },
  secureCookies: false,
};
