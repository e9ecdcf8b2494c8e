/**
 * npm run bench:auth — in one run on one server:
 *   1. sign-in/s over HTTP (captcha bypass in local mode, argon2id verify, session insert, JWT);
 *   2. requests/s to a no-op route behind the real authenticator (JWT verify + session and live-state read),
 *      next to the same no-op route without authentication.
 * Writes bench/results/auth-<timestamp>.json. Not a test: nothing here asserts a timing.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import pg from 'pg';
import { createAuthKit } from '../src/auth/auth-kit.js';
import { hashPassword } from '../src/auth/passwords.js';
import { generateKeys } from '../src/auth/sessions.js';
import { createLedger } from '../src/commands/ledger.js';
import { createUsers } from '../src/commands/users.js';
import { requireAuth } from '../src/http/auth.adapter.js';
import { errorHandler } from '../src/http/http-errors.js';
import { createPublicApp } from '../src/http/public-app.js';
import { createPostgresEventStore } from '../src/infra/event-store/postgres/postgres.event-store.js';
import { createLogger } from '../src/infra/logger.js';
import { createPool } from '../src/infra/pg.js';
import { migrateAll } from '../src/schema.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const USERS = 64;

const listen = (app: Express): Promise<{ server: Server; url: string }> =>
  new Promise((resolve) => {
    const server = app.listen(0, () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });

/** Runs `fire` from CONCURRENCY loops for SECONDS; counts successes per second. */
const drive = async (name: string, fire: (i: number) => Promise<boolean>) => {
  const end = Date.now() + SECONDS * 1000;
  let ok = 0;
  let failed = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      for (let i = worker; Date.now() < end; i += CONCURRENCY) {
        if (await fire(i)) ok += 1;
        else failed += 1;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const result = { name, ok, failed, seconds: Math.round(seconds * 100) / 100, perSecond: Math.round(ok / seconds) };
  console.log(JSON.stringify(result));
  return result;
};

const main = async (): Promise<void> => {
  const schema = `bench_auth_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = createPool({ connectionString: DATABASE_URL, schema, max: 20 });
  try {
    await migrateAll(pool);
    const store = createPostgresEventStore({ pool });
    const users = createUsers({ store, pool });
    const ledger = createLedger({ store, pool, userExists: users.exists, canTransact: users.canTransact });
    const kit = await createAuthKit({
      users,
      pool,
      settings: {
        keys: await generateKeys(),
        mfaKey: randomBytes(32),
        accessTtlSeconds: 900,
        refreshTtlSeconds: 3600,
        mfaChallengeTtlSeconds: 300,
        captcha: { verifyUrl: 'http://127.0.0.1:9/unused', secret: undefined, localBypassToken: 'bench-bypass', appEnv: 'local' },
        throttle: { maxFailuresPerAccount: 1e9, maxFailuresPerAddress: 1e9, windowSeconds: 60 },
        geoBlockedCountries: [],
        trustedCountryHeader: 'cf-ipcountry',
        allowedOrigins: [],
        secureCookies: false,
        frontendOrigin: 'http://localhost',
      },
    });
    const logger = createLogger({ level: 'silent' });
    const publicApi = await listen(createPublicApp({ logger, pool, store, auth: { kit, ledger } }));

    const bare = express();
    bare.disable('x-powered-by');
    bare.get('/noop', (_req, res) => {
      res.json({ ok: true });
    });
    bare.get('/noop-auth', requireAuth(kit.authenticator, 'public'), (req, res) => {
      res.json({ ok: true, userId: req.auth?.userId });
    });
    bare.use(errorHandler(logger));
    const probe = await listen(bare);

    const passwordHash = await hashPassword('bench password 123');
    const accounts: string[] = [];
    for (let i = 0; i < USERS; i += 1) {
      const email = `bench${i}@example.test`;
      await users.register({
        email,
        username: `bench${i}`,
        passwordHash,
        country: 'DE',
        referrerCode: null,
        marketingOptIn: false,
        provider: 'password',
        registration: { ip: null, userAgent: null, country: null, referrer: null },
      });
      accounts.push(email);
    }
    const signInOnce = async (i: number) => {
      const res = await fetch(`${publicApi.url}/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-captcha-token': 'bench-bypass' },
        body: JSON.stringify({ email: accounts[i % USERS], password: 'bench password 123' }),
      });
      await res.arrayBuffer();
      return res.status === 200;
    };
    const tokens: string[] = [];
    for (let i = 0; i < USERS; i += 1) {
      const s = await kit.sessions.create((await users.idByKey('email', accounts[i]!))!, { ip: null, userAgent: null });
      tokens.push(await kit.tokens.signAccess({ userId: s.userId, sessionId: s.id }));
    }
    const get = (path: string, auth: boolean) => async (i: number) => {
      const res = await fetch(`${probe.url}${path}`, { headers: auth ? { authorization: `Bearer ${tokens[i % USERS]}` } : {} });
      await res.arrayBuffer();
      return res.status === 200;
    };

    await drive('warm-up', get('/noop-auth', true));
    const signIns = await drive('sign-in', signInOnce);
    const bareRoute = await drive('no-op route, no authentication', get('/noop', false));
    const authRoute = await drive('no-op route, session-checked authentication', get('/noop-auth', true));
    const report = {
      at: new Date().toISOString(),
      seconds: SECONDS,
      concurrency: CONCURRENCY,
      node: process.version,
      signInPerSecond: signIns.perSecond,
      bareRequestsPerSecond: bareRoute.perSecond,
      authenticatedRequestsPerSecond: authRoute.perSecond,
      authenticationCostPercent: Math.round((1 - authRoute.perSecond / bareRoute.perSecond) * 1000) / 10,
      runs: [signIns, bareRoute, authRoute],
      note: 'client and server share one Node process and machine; argon2id (19 MiB, t=2) dominates sign-in',
    };
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/auth-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`report: ${file}`);
    console.log(JSON.stringify(report, null, 2));
    for (const s of [publicApi.server, probe.server]) {
      s.closeAllConnections();
      s.close();
    }
    await store.close();
  } finally {
    await pool.end();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
};

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
