import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeysStream } from '../../src/commands/api-keys.js';
import { call, createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { signedInAdmin } from '../support/money-env.js';

let env: AuthEnv;
let editor: Awaited<ReturnType<typeof signedInAdmin>>;
let viewer: Awaited<ReturnType<typeof signedInAdmin>>;

beforeAll(async () => {
  env = await createAuthEnv('api_keys');
  [editor, viewer] = await Promise.all([signedInAdmin(env, ['api-key.edit']), signedInAdmin(env, ['api-key.view'])]);
});
afterAll(async () => {
  await env?.close();
});

const me = (key: string) => call(env.publicUrl, 'GET', '/user/me', { headers: { 'x-api-key': key } });
const keyRows = async (userId: number) =>
  (
    await env.pool.query<{ key_hash: string; revoked_at: Date | null; created_by: string; revoked_by: string | null }>(
      'SELECT key_hash, revoked_at, created_by, revoked_by FROM api_keys WHERE user_id = $1 ORDER BY created_at',
      [userId],
    )
  ).rows;

describe('POST /api-keys', () => {
  it('when an admin creates a key, then 201 with the secret once, only its hash is stored, and the key authenticates on the public API', async () => {
    const user = await env.makeUser();
    const reply = await editor.as('POST', '/api-keys', { body: { userId: user.id } });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      id: expect.any(String),
      key: expect.any(String),
      userId: user.id,
      prefix: reply.body.key.slice(0, 8),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const [row] = await keyRows(user.id);
    expect(row).toMatchObject({
      key_hash: createHash('sha256').update(reply.body.key).digest('base64url'),
      revoked_at: null,
      created_by: String(editor.id),
    });
    expect(JSON.stringify((await env.store.readStream(apiKeysStream(user.id))).map((e) => e.data))).not.toContain(reply.body.key.slice(8));
    const who = await me(reply.body.key);
    expect(who.status).toBe(200);
    expect(who.body.id).toBe(user.id);
  });

  it('when a second key is created, then the first stops working (one active key per user)', async () => {
    const user = await env.makeUser();
    const first = await editor.as('POST', '/api-keys', { body: { userId: user.id } });
    const second = await editor.as('POST', '/api-keys', { body: { userId: user.id } });
    expect(second.body.key).not.toBe(first.body.key);
    expect((await me(first.body.key)).status).toBe(401);
    expect((await me(second.body.key)).status).toBe(200);
  });

  const INVALID: ReadonlyArray<readonly [string, unknown]> = [
    ['a missing userId', {}],
    ['a userId as a string', { userId: '5' }],
    ['a negative userId', { userId: -1 }],
  ];
  it.each(INVALID)('when the body has %s, then 400 VALIDATION_FAILED naming body.userId and no key is created', async (_name, body) => {
    const before = (await env.pool.query('SELECT count(*)::int AS n FROM api_keys')).rows[0].n;
    const reply = await editor.as('POST', '/api-keys', { body });
    expect(reply).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'body.userId' })] },
    });
    expect((await env.pool.query('SELECT count(*)::int AS n FROM api_keys')).rows[0].n).toBe(before);
  });

  it('when the user does not exist, then 404 USER_NOT_FOUND; with api-key.view only, then 403', async () => {
    expect((await editor.as('POST', '/api-keys', { body: { userId: 99_999_999 } })).body.code).toBe('USER_NOT_FOUND');
    const user = await env.makeUser();
    expect((await viewer.as('POST', '/api-keys', { body: { userId: user.id } })).status).toBe(403);
    expect(await keyRows(user.id)).toEqual([]);
  });
});

describe('GET /api-keys/:userId', () => {
  it('when the user has a key, then 200 without the secret; with none, 200 {}; bad id 400; api-key.edit alone 403', async () => {
    const user = await env.makeUser();
    expect(await viewer.as('GET', `/api-keys/${user.id}`)).toMatchObject({ status: 200, body: {} });
    const created = await editor.as('POST', '/api-keys', { body: { userId: user.id } });
    const reply = await viewer.as('GET', `/api-keys/${user.id}`);
    expect(reply.body).toEqual({
      id: created.body.id,
      userId: user.id,
      prefix: created.body.prefix,
      createdAt: created.body.createdAt,
      updatedAt: created.body.updatedAt,
    });
    expect(JSON.stringify(reply.body)).not.toContain(created.body.key);
    expect((await viewer.as('GET', '/api-keys/x')).body.details[0].field).toBe('params.userId');
    expect((await editor.as('GET', `/api-keys/${user.id}`)).status).toBe(403);
  });
});

describe('DELETE /api-keys/:userId', () => {
  it('when an admin disables the key, then 204 with no body, the key stops authenticating, the look-up is {} and the admin is recorded', async () => {
    const user = await env.makeUser();
    const { body: created } = await editor.as('POST', '/api-keys', { body: { userId: user.id } });
    expect((await me(created.key)).status).toBe(200);
    const reply = await editor.as('DELETE', `/api-keys/${user.id}`);
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expect((await me(created.key)).status).toBe(401);
    expect((await viewer.as('GET', `/api-keys/${user.id}`)).body).toEqual({});
    expect((await keyRows(user.id))[0]).toMatchObject({ revoked_at: expect.any(Date), revoked_by: String(editor.id) });
    expect((await env.store.readStream(apiKeysStream(user.id))).map((e) => e.type)).toEqual(['ApiKeyIssued', 'ApiKeysRevoked']);
  });

  it('when no key is active, then 204 again (idempotent); unknown user 404; api-key.view alone 403', async () => {
    const user = await env.makeUser();
    expect((await editor.as('DELETE', `/api-keys/${user.id}`)).status).toBe(204);
    expect((await editor.as('DELETE', '/api-keys/99999999')).status).toBe(404);
    expect((await viewer.as('DELETE', `/api-keys/${user.id}`)).status).toBe(403);
  });
});
