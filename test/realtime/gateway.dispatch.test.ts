import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpError } from '../../src/http/http-errors.js';
import type { ClientEventHandler } from '../../src/realtime/protocol.js';
import { createRealtimeEnv, type RealtimeEnv } from '../support/realtime-env.js';

const seen: unknown[] = [];

/** Test-only handlers covering each path of the dispatcher. */
const handlers: ClientEventHandler[] = [
  {
    event: 'TestEcho',
    access: 'optional',
    schema: z.object({ text: z.string().max(10), n: z.number().int().optional() }),
    handle: async (data: { text: string }, ctx) => ({ text: data.text, userId: ctx.user?.userId ?? null }),
  },
  {
    event: 'TestRecord',
    access: 'optional',
    schema: z.object({ mark: z.string() }),
    handle: async (data: { mark: string }) => {
      seen.push(data.mark);
      return { recorded: data.mark };
    },
  },
  {
    event: 'TestPrivate',
    access: 'required',
    schema: z.unknown(),
    handle: async (_data, ctx) => ({ userId: ctx.user!.userId }),
  },
  {
    event: 'TestBan',
    access: { permission: 'user.ban' },
    schema: z.object({ userId: z.number() }),
    handle: async (data: { userId: number }, ctx) => ({ banned: data.userId, by: ctx.user!.userId, permissions: ctx.user!.permissions }),
  },
  {
    event: 'TestConflict',
    access: 'optional',
    schema: z.unknown(),
    handle: async () => {
      throw new HttpError(409, 'TEST_CONFLICT', 'Already done', [{ field: 'data.id', message: 'taken' }]);
    },
  },
  {
    event: 'TestCrash',
    access: 'optional',
    schema: z.unknown(),
    handle: async () => {
      throw new Error('database password is hunter2');
    },
  },
  {
    event: 'TestHang',
    access: 'optional',
    schema: z.unknown(),
    handle: () => new Promise(() => undefined),
  },
];

describe('realtime gateway: dispatch of client events', () => {
  let env: RealtimeEnv;

  beforeAll(async () => {
    env = await createRealtimeEnv('gw_dispatch', { publisher: false, handlers: () => handlers, handlerTimeoutMs: 300 });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('when a native event is sent with an acknowledgement, then the handler result comes back as {status: 200, data}', async () => {
    const { user, accessToken } = await env.signedIn();
    const c = await env.connect({ token: accessToken });
    await c.waitFor('AuthSuccess');
    expect(await c.ack('TestEcho', { text: 'hi' })).toEqual({ status: 200, data: { text: 'hi', userId: user.id } });
    c.close();
  });

  it('when the generic message {event, data, isAck: true} is sent, then it is routed like the native event and acknowledged', async () => {
    const c = await env.connect();
    expect(await c.ack('message', { event: 'TestEcho', data: { text: 'yo' }, isAck: true })).toEqual({
      status: 200,
      data: { text: 'yo', userId: null },
    });
    expect(await c.ack('message', { event: 'Nope', data: {}, isAck: true })).toEqual({
      status: 404,
      code: 'UNKNOWN_EVENT',
      message: 'Unknown event Nope',
    });
    c.close();
  });

  it('when the generic message has isAck false, then the handler runs but nothing is acknowledged (fire and forget)', async () => {
    const c = await env.connect();
    const mark = `m-${Date.now()}`;
    c.socket.emit('message', { event: 'TestRecord', data: { mark }, isAck: false });
    await env.eventually(() => expect(seen).toContain(mark));
    // A later acknowledged message answers first: nothing was queued for the fire-and-forget one.
    expect(await c.ack('message', { event: 'TestEcho', data: { text: 'after' }, isAck: true })).toMatchObject({ status: 200 });
    c.close();
  });

  it('when the generic envelope is malformed, then 400 VALIDATION_FAILED names the envelope field', async () => {
    const c = await env.connect();
    const ack = await c.ack('message', { data: {} });
    expect(ack).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(ack.details).toEqual([expect.objectContaining({ field: 'message.event' })]);
    c.close();
  });

  it('when a fire-and-forget message fails validation, then ValidationErrors names the fields and the handler does not run', async () => {
    const c = await env.connect();
    const mark = `never-${Date.now()}`;
    c.socket.emit('message', { event: 'TestRecord', data: { mark: 42 }, isAck: false });
    expect(await c.waitFor('ValidationErrors')).toEqual([{ field: 'data.mark', message: expect.any(String) }]);
    c.socket.emit('TestEcho', { text: 'far too long for ten' }); // a native event without an acknowledgement
    expect(await c.waitFor('ValidationErrors', (p: { field: string }[]) => p[0]?.field === 'data.text')).toHaveLength(1);
    c.socket.emit('message', { data: { mark } }); // the envelope itself is wrong
    expect(await c.waitFor('ValidationErrors', (p: { field: string }[]) => p[0]?.field === 'message.event')).toHaveLength(1);
    // An acknowledged message with bad data gets its answer in the acknowledgement, not as an event.
    const before = c.all('ValidationErrors').length;
    expect(await c.ack('message', { event: 'TestRecord', data: {}, isAck: true })).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
    });
    expect(await c.ack('TestEcho', { text: 'ok' })).toMatchObject({ status: 200 });
    expect(c.all('ValidationErrors')).toHaveLength(before);
    expect(seen).not.toContain(mark);
    c.close();
  });

  it('when a message carries a NUL, a lone surrogate or JSON nested past the limit, then 400 VALIDATION_FAILED naming the field and the handler does not run', async () => {
    const c = await env.connect();
    const before = seen.length;
    expect(await c.ack('TestRecord', { mark: 'a\u0000b' })).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      details: [{ field: 'data.mark' }],
    });
    expect(await c.ack('message', { event: 'TestRecord', data: { mark: '\ud800' }, isAck: true })).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      details: [{ field: 'message.data.mark' }],
    });
    let deep: unknown = 'x';
    for (let i = 0; i < 200; i++) deep = { d: deep };
    expect(await c.ack('TestRecord', { mark: 'ok', deep })).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(seen.length).toBe(before);
    expect(await c.ack('TestRecord', { mark: 'fine' })).toEqual({ status: 200, data: { recorded: 'fine' } });
    c.close();
  });

  it('when the event is unknown, then 404 UNKNOWN_EVENT', async () => {
    const c = await env.connect();
    expect(await c.ack('NoSuchEvent', {})).toEqual({ status: 404, code: 'UNKNOWN_EVENT', message: 'Unknown event NoSuchEvent' });
    c.close();
  });

  it('when the data fails the schema, then 400 VALIDATION_FAILED with data.<path> details and the handler does not run', async () => {
    const c = await env.connect();
    const ack = await c.ack('TestEcho', { text: 'far too long for ten', n: 1.5 });
    expect(ack).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', message: 'Validation failed' });
    expect((ack.details as { field: string }[]).map((d) => d.field).sort()).toEqual(['data.n', 'data.text']);
    expect(await c.ack('TestEcho')).toMatchObject({ status: 400, details: [{ field: 'data' }] });
    c.close();
  });

  it('when a required event comes from an anonymous socket, then Unauthorized and a 401 acknowledgement; authenticated it runs', async () => {
    const anon = await env.connect();
    expect(await anon.ack('TestPrivate', {})).toEqual({ status: 401, code: 'UNAUTHORIZED', message: 'Authentication required' });
    expect(await anon.waitFor('Unauthorized')).toEqual({ message: 'Authentication required' });
    const { user, accessToken } = await env.signedIn();
    const c = await env.connect({ token: accessToken });
    await c.waitFor('AuthSuccess');
    expect(await c.ack('TestPrivate', {})).toEqual({ status: 200, data: { userId: user.id } });
    anon.close();
    c.close();
  });

  it('when a permission-gated event comes from a user without it, then 403 FORBIDDEN; a grant counts at once, read live', async () => {
    const admin = await env.signedIn({ roles: ['Admin'] });
    const c = await env.connect({ token: admin.accessToken });
    await c.waitFor('AuthSuccess');
    expect(await c.ack('TestBan', { userId: 7 })).toEqual({ status: 403, code: 'FORBIDDEN', message: 'Missing permission user.ban' });
    await env.users.execute(admin.user.id, { type: 'GrantPermission', data: { permission: 'user.ban' } }, null);
    expect(await c.ack('TestBan', { userId: 7 })).toEqual({
      status: 200,
      data: { banned: 7, by: admin.user.id, permissions: ['user.ban'] },
    });
    await env.users.execute(admin.user.id, { type: 'RevokePermission', data: { permission: 'user.ban' } }, null);
    expect(await c.ack('TestBan', { userId: 7 })).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    c.close();
  });

  it('when a plain user holds the permission but is not staff, then 403; a SuperAdmin holds every permission', async () => {
    const plain = await env.signedIn({ permissions: ['user.ban'] });
    const p = await env.connect({ token: plain.accessToken });
    await p.waitFor('AuthSuccess');
    expect(await p.ack('TestBan', { userId: 1 })).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const boss = await env.signedIn({ roles: ['SuperAdmin'] });
    const b = await env.connect({ token: boss.accessToken });
    await b.waitFor('AuthSuccess');
    expect(await b.ack('TestBan', { userId: 1 })).toMatchObject({ status: 200, data: { banned: 1 } });
    p.close();
    b.close();
  });

  it('when a permission-gated event comes after the session was ended, then 401 and the socket is de-authenticated', async () => {
    const admin = await env.signedIn({ roles: ['Admin'], permissions: ['user.ban'] });
    const c = await env.connect({ token: admin.accessToken });
    await c.waitFor('AuthSuccess');
    // Straight in the table: the gateway must not rely on the notification alone.
    await env.pool.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [admin.user.id]);
    expect(await c.ack('TestBan', { userId: 1 })).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(await c.waitFor('AuthError')).toMatchObject({ error: 'SESSION_ENDED' });
    c.close();
  });

  it('when a handler throws an HttpError, then its status, code, message and details are the acknowledgement', async () => {
    const c = await env.connect();
    expect(await c.ack('TestConflict', {})).toEqual({
      status: 409,
      code: 'TEST_CONFLICT',
      message: 'Already done',
      details: [{ field: 'data.id', message: 'taken' }],
    });
    expect(c.all('ServerError')).toEqual([]);
    c.close();
  });

  it('when a handler fails unexpectedly, then ServerError {message, code, requestId} and a 500 acknowledgement without the error text', async () => {
    const c = await env.connect();
    const ack = await c.ack('TestCrash', {});
    expect(ack).toEqual({ status: 500, code: 'INTERNAL_ERROR', message: 'Internal server error', requestId: expect.any(String) });
    const event = await c.waitFor<{ requestId: string }>('ServerError');
    expect(event).toEqual({ message: 'Internal server error', code: 'INTERNAL_ERROR', requestId: ack.requestId });
    expect(JSON.stringify(c.received)).not.toContain('hunter2');
    // Fire and forget too: the event still tells the client.
    c.socket.emit('TestCrash', {});
    await env.eventually(() => expect(c.all('ServerError')).toHaveLength(2));
    expect(c.socket.connected).toBe(true);
    c.close();
  });

  it('when a handler does not answer within the time limit, then TimeoutError and a 504 acknowledgement', async () => {
    const c = await env.connect();
    expect(await c.ack('TestHang', {})).toEqual({ status: 504, code: 'TIMEOUT', message: 'The request timed out' });
    expect(await c.waitFor('TimeoutError')).toEqual({ message: 'The request timed out' });
    expect(await c.ack('TestEcho', { text: 'alive' })).toMatchObject({ status: 200 });
    c.close();
  });

  it('when the de-authentication listener loses its database connection, then it reconnects and a later log-out still reaches the socket', async () => {
    const listeners = async () =>
      (
        await env.pool.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE query = $1`, [`LISTEN "deauth:${env.db.schema}"`])
      ).rows.map((r) => r.pid);
    const [before] = await listeners();
    expect(before).toBeDefined();
    await env.pool.query('SELECT pg_terminate_backend($1)', [before]);
    await env.eventually(async () => {
      const now = await listeners();
      expect(now).toHaveLength(1);
      expect(now[0]).not.toBe(before);
    });
    const { user, accessToken } = await env.signedIn();
    const c = await env.connect({ token: accessToken });
    await c.waitFor('AuthSuccess');
    // The sweep runs every 60 s here: only the notification can de-authenticate within the wait.
    await env.kit.sessions.revokeAllOf(user.id, 'test');
    expect(await c.waitFor('AuthError')).toMatchObject({ error: 'SESSION_ENDED' });
    c.close();
  });

  it('when a client emits a reserved-looking name like "error", then it is just an unknown event and the gateway stays up', async () => {
    const c = await env.connect();
    expect(await c.ack('error', { boom: true })).toMatchObject({ status: 404, code: 'UNKNOWN_EVENT' });
    expect(await c.ack('TestEcho', { text: 'ok' })).toMatchObject({ status: 200 });
    c.close();
  });
});
