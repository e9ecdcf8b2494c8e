import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChat } from '../../src/commands/chat.js';
import { bearer, call, createAuthEnv, signIn, type AuthEnv } from '../support/auth-env.js';

let env: AuthEnv;
let moderator = '';
let moderatorId = 0;
const fieldsOf = (body: { details?: { field: string }[] }) => (body.details ?? []).map((d) => d.field);
const act = (body: unknown, token = moderator) => call(env.adminUrl, 'POST', '/chat/admin-action', { headers: bearer(token), body });
const count = async (table: string) => Number((await env.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);

beforeAll(async () => {
  env = await createAuthEnv('chat_admin');
  const user = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['chat.admin-action'] });
  moderatorId = user.id;
  moderator = (await signIn(env, user)).accessToken;
});
afterAll(async () => {
  await env?.close();
});

describe('POST /chat/admin-action', () => {
  it('when a message is deleted, then 201, the message is deleted and the moderation is recorded as applied with the acting admin', async () => {
    const author = await env.makeUser();
    const sent = await createChat({ pool: env.pool, publish: async () => undefined }).send({
      roomId: 'general',
      userId: author.id,
      text: 'spam',
    });
    if (sent._tag === 'Left') throw new Error(sent.left._tag);
    const messageId = sent.right.id;
    const reply = await act({ action: 'delete_message', args: { messageId } });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      id: expect.any(String),
      action: 'delete_message',
      args: { messageId },
      adminUserId: moderatorId,
      createdAt: expect.any(String),
      appliedAt: reply.body.createdAt,
    });
    const { rows } = await env.pool.query(
      'SELECT action, args, admin_user_id, applied_at IS NOT NULL AS applied FROM chat_moderation WHERE id = $1',
      [reply.body.id],
    );
    expect(rows).toEqual([{ action: 'delete_message', args: { messageId }, admin_user_id: String(moderatorId), applied: true }]);
    const {
      rows: [message],
    } = await env.pool.query('SELECT deleted_by FROM chat_messages WHERE id = $1', [messageId]);
    expect(message).toEqual({ deleted_by: String(moderatorId) });
  });

  it('when the message or the room is unknown, then 404 and nothing is recorded', async () => {
    const before = [await count('chat_moderation'), await count('chat_room_limits')];
    expect(await act({ action: 'delete_message', args: { messageId: 'm-1' } })).toMatchObject({
      status: 404,
      body: { code: 'CHAT_MESSAGE_NOT_FOUND' },
    });
    expect(await act({ action: 'set_rate_limit', args: { roomId: 'nowhere', messagesPerMinute: 5 } })).toMatchObject({
      status: 404,
      body: { code: 'CHAT_ROOM_NOT_FOUND' },
    });
    expect([await count('chat_moderation'), await count('chat_room_limits')]).toEqual(before);
  });

  it('when a room rate limit is set twice, then 201 each time and the room keeps the latest limit', async () => {
    expect((await act({ action: 'set_rate_limit', args: { roomId: 'en', messagesPerMinute: 30 } })).status).toBe(201);
    expect((await act({ action: 'set_rate_limit', args: { roomId: 'en', messagesPerMinute: 5 } })).status).toBe(201);
    const { rows } = await env.pool.query('SELECT room_id, messages_per_minute FROM chat_room_limits');
    expect(rows).toEqual([{ room_id: 'en', messages_per_minute: 5 }]);
  });

  it.each([
    ['an unknown action', { action: 'ban_user', args: {} }, 'body.action'],
    ['missing args', { action: 'delete_message' }, 'body.args'],
    ['a delete without messageId', { action: 'delete_message', args: {} }, 'body.args.messageId'],
    ['a rate limit above 600', { action: 'set_rate_limit', args: { roomId: 'en', messagesPerMinute: 601 } }, 'body.args.messagesPerMinute'],
    [
      'a fractional rate limit',
      { action: 'set_rate_limit', args: { roomId: 'en', messagesPerMinute: 1.5 } },
      'body.args.messagesPerMinute',
    ],
    ['an argument of another action', { action: 'delete_message', args: { messageId: 'm', roomId: 'en' } }, 'body.args'],
  ])('when %s, then 400 VALIDATION_FAILED and nothing is recorded', async (_name, body, field) => {
    const before = [await count('chat_moderation'), await count('chat_room_limits')];
    const reply = await act(body);
    expect(reply.status).toBe(400);
    expect(fieldsOf(reply.body)).toContain(field);
    expect([await count('chat_moderation'), await count('chat_room_limits')]).toEqual(before);
  });

  it('when an Admin without chat.admin-action calls, then 403', async () => {
    const token = (await signIn(env, await env.makeUser({ roles: ['User', 'Admin'] }))).accessToken;
    expect((await act({ action: 'delete_message', args: { messageId: 'm' } }, token)).status).toBe(403);
  });
});
