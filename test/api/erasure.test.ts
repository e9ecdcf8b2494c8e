import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport } from '../../src/audit/export.js';
import { EXPORT_KINDS } from '../../src/audit/export.columns.js';
import { startSealer } from '../../src/audit/seal.js';
import { verifyLedger } from '../../src/audit/verify.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { createAdminApp } from '../../src/http/admin-app.js';
import { createLogger } from '../../src/infra/logger.js';
import { rebuildBlueGreen } from '../../src/projections/blue-green.js';
import { usersProjection } from '../../src/read-models/users/users.projection.js';
import { bearer, call, createAuthEnv, GOOD_CAPTCHA, PASSWORD, signIn, unique, type AuthEnv } from '../support/auth-env.js';
import { playScenario, projectAll } from '../support/audit-ledger.js';

const KEY = randomBytes(32);
const YEAR_MS = 365.25 * 24 * 3600 * 1000;
const TRADE_LINK = 'https://steamcommunity.com/tradeoffer/new/?partner=4242&token=Zq7Wx9Pk';

let env: AuthEnv;
let server: Server;
let adminUrl: string;
let token: string;
let adminId: number;
/** The erasure's clock: moved by the tests (the retention rule counts from the last activity). */
let now = new Date();

type Person = Readonly<{ id: number; email: string; username: string; ip: string; userAgent: string }>;
let alice: Person;
let bob: Person;

let people = 0;
const register = async (tag: string): Promise<Person> => {
  const p = {
    email: `${unique(`${tag}m`)}@example.test`,
    username: unique(tag),
    ip: `203.0.113.${(people += 1) + 40}`,
    userAgent: `Agent-${unique(tag)}/1.0`,
  };
  const created = await env.users.register({
    email: p.email,
    username: p.username,
    passwordHash: await hashPassword(PASSWORD),
    country: 'DE',
    referrerCode: null,
    marketingOptIn: true,
    provider: 'password',
    registration: { ip: p.ip, userAgent: p.userAgent, country: 'DE', referrer: 'https://ref.example.test/' },
  });
  if (created._tag === 'Left') throw new Error(created.left._tag);
  // A session of theirs: the sessions table keeps the user agent it signed in with.
  const signed = await call(env.publicUrl, 'POST', '/auth/sign-in', {
    body: { email: p.email, password: PASSWORD },
    headers: { 'x-captcha-token': GOOD_CAPTCHA, 'user-agent': p.userAgent },
  });
  expect(signed.status).toBe(200);
  return { id: created.right.userId, ...p };
};

const erase = (userId: number, body: unknown) => call(adminUrl, 'POST', `/user/${userId}/erase`, { body, headers: bearer(token) });

const sealAll = async (): Promise<void> => {
  const sealer = startSealer({ store: env.store, pool: env.pool, key: KEY, checkpointEvery: 5, checkpointIntervalMs: 60_000 });
  try {
    await sealer.caughtUp();
  } finally {
    await sealer.stop();
  }
};
const settle = async (): Promise<void> => {
  await projectAll(env.store, env.pool);
  await sealAll();
};

/** Every text, jsonb and bytea column of every table of the test schema that holds `needle` (case-insensitive). */
const whereFound = async (needle: string): Promise<string[]> => {
  const { rows: columns } = await env.pool.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
     JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
     WHERE c.table_schema = current_schema()
       AND c.data_type IN ('text', 'character varying', 'character', 'jsonb', 'json', 'bytea', 'ARRAY')`,
  );
  const found: string[] = [];
  for (const c of columns) {
    const column = `"${c.column_name}"`;
    const asText = c.data_type === 'bytea' ? `encode(${column}, 'escape')` : `${column}::text`;
    const { rows } = await env.pool.query(`SELECT 1 FROM "${c.table_name}" WHERE strpos(lower(${asText}), lower($1)) > 0 LIMIT 1`, [
      needle,
    ]);
    if (rows.length > 0) found.push(`${c.table_name}.${c.column_name}`);
  }
  return found;
};

const exports = async (): Promise<string> => {
  let all = '';
  for (const kind of EXPORT_KINDS) {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (b: Buffer) => chunks.push(b));
    await runExport({ pool: env.pool, kind, format: 'csv', output: out });
    all += Buffer.concat(chunks).toString('utf8');
  }
  return all;
};

/** What the money looks like: balances, the player's rows of every money table, the trial balance. */
const money = async (userIds: readonly number[]) => {
  const q = async (sql: string) => (await env.pool.query(sql, [userIds])).rows;
  return {
    balances: await Promise.all(userIds.map((id) => env.ledger.balances(id))),
    transactions: await q('SELECT * FROM transactions WHERE user_id = ANY($1) ORDER BY id'),
    walletBalances: await q('SELECT * FROM wallet_balances WHERE user_id = ANY($1) ORDER BY 1, 2'),
    deposits: await q('SELECT * FROM deposits WHERE user_id = ANY($1) ORDER BY id'),
    withdrawals: await q('SELECT * FROM withdrawals WHERE user_id = ANY($1) ORDER BY id'),
    bets: await q('SELECT * FROM bets WHERE user_id = ANY($1) ORDER BY id'),
    stats: await q('SELECT * FROM user_stats_usd WHERE user_id = ANY($1) ORDER BY 1'),
    trial: (await env.pool.query('SELECT currency_id, sum(balance)::text AS total FROM account_balances GROUP BY 1 ORDER BY 1')).rows,
  };
};

const verify = () => verifyLedger({ store: env.store, pool: env.pool, seals: { key: KEY, checkpointEvery: 5 } });

beforeAll(async () => {
  env = await createAuthEnv('erasure');
  const admin = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
  adminId = admin.id;
  token = (await signIn(env, admin)).accessToken;
  const logger = createLogger({ level: 'silent' });
  const app = createAdminApp({
    logger,
    pool: env.pool,
    store: env.store,
    ledger: env.ledger,
    auth: env.kit,
    accessRegistry: [],
    erasure: { retentionYears: 5, sealKey: KEY, clock: () => now },
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  adminUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  alice = await register('al');
  bob = await register('bo');
  const changes = { gamePlatformTradeLink: TRADE_LINK, isTest: true };
  const profiled = await env.users.execute(alice.id, { type: 'UpdateProfile', data: { changes } }, adminId);
  expect(profiled._tag).toBe('Right');
  await playScenario(env.ledger, { alice: alice.id, bob: bob.id }, adminId);
  await settle();
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await env?.close();
});

describe('POST /user/{id}/erase', () => {
  it('when the retention period still holds and force is not set, then 409 RETENTION_HOLDS and nothing is erased', async () => {
    now = new Date();
    const reply = await erase(alice.id, { reason: 'DSR-0001' });
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ statusCode: 409, code: 'RETENTION_HOLDS' });
    expect((await env.pool.query('SELECT 1 FROM person_keys WHERE user_id = $1', [alice.id])).rowCount).toBe(1);
    expect(await whereFound(alice.email)).toContain('users.email');
  });

  it('when a player with deposits, bets and withdrawals is erased after the retention period, then none of their data remains', async () => {
    const moneyBefore = await money([alice.id, bob.id]);
    const exportsBefore = await exports();
    expect((await verify()).ok).toBe(true);
    // Every event carries the personal fields encrypted: the stored data never held them in the clear.
    for (const needle of [alice.email, alice.username, alice.ip, alice.userAgent])
      expect(await whereFound(needle)).not.toContain('events.data');

    now = new Date(Date.now() + 6 * YEAR_MS);
    const reply = await erase(alice.id, { reason: 'DSR-0002' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ userId: alice.id, forced: false, legacyPlaintextEvents: 0 });
    await settle();

    for (const needle of [alice.email, alice.username, alice.ip, alice.userAgent, 'Zq7Wx9Pk']) {
      expect(await whereFound(needle), needle).toEqual([]);
      expect(await exports()).not.toContain(needle);
    }
    // Bob is untouched: his personal data still reads.
    expect(await whereFound(bob.email)).toContain('users.email');

    expect(await money([alice.id, bob.id])).toEqual(moneyBefore);
    expect(await exports()).toBe(exportsBefore);
    const report = await verify();
    expect(report.differences).toEqual([]);
    expect(report.ok).toBe(true);

    // Lists and the record show the person as erased.
    const record = await call(adminUrl, 'GET', `/user/${alice.id}`, { headers: bearer(token) });
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({ username: '[erased]', email: null, isTest: true });
    const audit = await env.pool.query('SELECT action, details FROM admin_audit WHERE target_user_id = $1 AND action = $2', [
      alice.id,
      'user.erase',
    ]);
    expect(audit.rows).toEqual([{ action: 'user.erase', details: expect.objectContaining({ reason: 'DSR-0002', forced: false }) }]);
    // Signing in with the erased e-mail finds nobody.
    const signInAgain = await call(env.publicUrl, 'POST', '/auth/sign-in', {
      body: { email: alice.email, password: PASSWORD },
      headers: { 'x-captcha-token': GOOD_CAPTCHA },
    });
    expect(signInAgain.status).toBe(401);
  });

  it('when the users read model is rebuilt from the log after the erasure, then the person still reads as erased', async () => {
    await rebuildBlueGreen({ store: env.store, pool: env.pool, projections: [usersProjection], batchSize: 50 });
    const { rows } = await env.pool.query('SELECT email, username, country, profile FROM users WHERE id = $1', [alice.id]);
    expect(rows).toEqual([{ email: null, username: '[erased]', country: null, profile: { isTest: true } }]);
    expect(await whereFound(alice.email)).toEqual([]);
    expect(await whereFound(bob.email)).toContain('users.email');
  });

  it('when the same person is erased again, then 409 ALREADY_ERASED', async () => {
    const reply = await erase(alice.id, { reason: 'DSR-0003', force: true });
    expect(reply.status).toBe(409);
    expect(reply.body.code).toBe('ALREADY_ERASED');
  });

  it('when a SuperAdmin forces an erasure inside the retention period, then it is done and audited as forced with its reason', async () => {
    now = new Date();
    const reply = await erase(bob.id, { reason: 'court order 17/2026', force: true });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ userId: bob.id, forced: true });
    expect(new Date(reply.body.retainedUntil as string).getTime()).toBeGreaterThan(now.getTime());
    await settle();
    for (const needle of [bob.email, bob.username, bob.ip, bob.userAgent]) expect(await whereFound(needle), needle).toEqual([]);
    const audit = await env.pool.query('SELECT details FROM admin_audit WHERE target_user_id = $1 AND action = $2', [bob.id, 'user.erase']);
    expect(audit.rows[0]?.details).toMatchObject({ reason: 'court order 17/2026', forced: true });
    expect((await verify()).ok).toBe(true);
  });

  it('when a person registered before encryption (plaintext, sealed) is erased, then the event is redacted in place and verify accepts it', async () => {
    const id = Number((await env.pool.query<{ id: string }>(`SELECT nextval('user_id_seq') AS id`)).rows[0]!.id);
    const old = { email: `${unique('old')}@example.test`, username: unique('old'), ip: '198.51.100.77', userAgent: `Old-${unique('ua')}` };
    // Appended past the encrypting store, as every user event was before this version.
    await env.store.append({
      streamId: `user-${id}`,
      expectedRevision: 'no_stream',
      events: [
        {
          id: randomUUID(),
          type: 'UserRegistered',
          data: {
            userId: id,
            email: old.email,
            username: old.username,
            country: 'FR',
            referrerCode: null,
            marketingOptIn: false,
            registration: { ip: old.ip, userAgent: old.userAgent, country: 'FR', referrer: null },
            provider: 'password',
            roles: ['User'],
            at: new Date().toISOString(),
            adminUserId: null,
          },
        },
      ],
    });
    await settle();
    expect(await whereFound(old.email)).toContain('events.data');

    now = new Date();
    const reply = await erase(id, { reason: 'DSR-legacy', force: true });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ redactedEvents: 1, legacyPlaintextEvents: 0 });
    await settle();
    for (const needle of [old.email, old.username, old.ip, old.userAgent]) expect(await whereFound(needle), needle).toEqual([]);
    const report = await verify();
    expect(report.differences).toEqual([]);

    // The redaction covers exactly the redacted form: any other change to the event is still caught.
    await env.pool.query(`UPDATE events SET data = jsonb_set(data, '{roles}', '["User","SuperAdmin"]') WHERE stream_id = $1`, [
      `user-${id}`,
    ]);
    const tampered = await verify();
    expect(tampered.ok).toBe(false);
    expect(JSON.stringify(tampered.differences)).toMatch(/UserRegistered\) no longer matches its seal/);
  });
});
