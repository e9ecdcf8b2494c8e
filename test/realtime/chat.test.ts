import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MESSAGES_PER_MINUTE, type ChatMessage } from '../../src/commands/chat.js';
import { chatHandlers } from '../../src/realtime/handlers/chat.js';
import { adminHandlers } from '../../src/realtime/handlers/admin.js';
import { bearer, call } from '../support/auth-env.js';
import { createRealtimeEnv, type RealtimeEnv, type TestClient } from '../support/realtime-env.js';

let env: RealtimeEnv;
const fields = (ack: object): string[] => (((ack as { details?: unknown }).details ?? []) as { field: string }[]).map((d) => d.field);
const count = async (sql: string, params: unknown[] = []) =>
  Number((await env.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, params)).rows[0]!.n);
type Update = { roomId: string; message: ChatMessage };

beforeAll(async () => {
  env = await createRealtimeEnv('rt_chat', {
    publisher: false,
    // Plenty of messages per address: these tests are about the chat's own per-room limit.
    ws: { throttlerLimit: 10_000 },
    handlers: (e, bus) => [...chatHandlers({ pool: e.pool, bus }), ...adminHandlers({ pool: e.pool, ledger: e.ledger, auth: e.kit, bus })],
  });
});
afterAll(async () => {
  await env?.close();
});

/** A signed-in socket (after AuthSuccess) of a new user. */
const member = async (opts: Parameters<RealtimeEnv['signedIn']>[0] = {}) => {
  const signed = await env.signedIn(opts);
  const client = await env.connect({ token: signed.accessToken });
  await client.waitFor('AuthSuccess');
  return { ...signed, client };
};
/** A room of its own per test, so limits and histories never mix. */
let rooms = 0;
const newRoom = async (): Promise<string> => {
  rooms += 1;
  const id = `room-${rooms}`;
  await env.pool.query('INSERT INTO chat_rooms (id, name, position) VALUES ($1, $2, 10)', [id, `Room ${rooms}`]);
  return id;
};
/** Sockets that got no ChatMessageUpdate for `messageId`, checked after a broadcast probe reached them (events arrive in order). */
let probes = 0;
const gotUpdate = async (clients: TestClient[], messageId: string): Promise<boolean[]> => {
  probes += 1;
  await env.bus.publish('Probe', { payload: { n: probes } });
  await Promise.all(clients.map((c) => c.waitFor<{ n: number }>('Probe', (p) => p.n === probes)));
  return clients.map((c) => c.all('ChatMessageUpdate').some((r) => (r.payload as Update).message.id === messageId));
};

describe('ChatGetRooms', () => {
  it('when an anonymous socket asks, then it gets every room with its limit', async () => {
    const c = await env.connect();
    const ack = await c.ack('ChatGetRooms', {});
    expect(ack.status).toBe(200);
    expect((ack.data as { id: string }[]).slice(0, 5)).toEqual([
      { id: 'general', name: 'General', messagesPerMinute: DEFAULT_MESSAGES_PER_MINUTE },
      { id: 'en', name: 'English', messagesPerMinute: DEFAULT_MESSAGES_PER_MINUTE },
      { id: 'es', name: 'Español', messagesPerMinute: DEFAULT_MESSAGES_PER_MINUTE },
      { id: 'pt', name: 'Português', messagesPerMinute: DEFAULT_MESSAGES_PER_MINUTE },
      { id: 'ru', name: 'Русский', messagesPerMinute: DEFAULT_MESSAGES_PER_MINUTE },
    ]);
    expect(await c.ack('ChatGetRooms')).toMatchObject({ status: 200 });
    expect(await c.ack('ChatGetRooms', 'rooms')).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    c.close();
  });
});

describe('ChatJoin / ChatLeave', () => {
  it("when a member joins, then it gets the room's messages; a socket outside does not; after leaving, the member does not either", async () => {
    const room = await newRoom();
    const a = await member();
    const b = await member();
    const outsider = await member();
    expect(await a.client.ack('ChatJoin', { roomId: room })).toEqual({ status: 200, data: { room: `chat:${room}` } });
    expect(await b.client.ack('ChatJoin', { roomId: room })).toEqual({ status: 200, data: { room: `chat:${room}` } });

    const sent = await a.client.ack('ChatSendMessage', { roomId: room, text: 'hi all' });
    expect(sent.status).toBe(200);
    const message = sent.data as ChatMessage;
    const update = await b.client.waitFor<Update>('ChatMessageUpdate', (p) => p.message.id === message.id);
    expect(update).toEqual({ roomId: room, message });
    expect(await gotUpdate([a.client, b.client, outsider.client], message.id)).toEqual([true, true, false]);

    expect(await b.client.ack('ChatLeave', { roomId: room })).toEqual({ status: 200, data: { room: `chat:${room}` } });
    const second = (await a.client.ack('ChatSendMessage', { roomId: room, text: 'still here?' })).data as ChatMessage;
    expect(await gotUpdate([a.client, b.client], second.id)).toEqual([true, false]);
    [a, b, outsider].forEach((m) => m.client.close());
  });

  it("when an anonymous socket joins or leaves, then 401 and an Unauthorized event, and it gets none of the room's messages", async () => {
    const room = await newRoom();
    const anonymous = await env.connect();
    expect(await anonymous.ack('ChatJoin', { roomId: room })).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    await anonymous.waitFor('Unauthorized');
    expect(await anonymous.ack('ChatLeave', { roomId: room })).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const a = await member();
    const message = (await a.client.ack('ChatSendMessage', { roomId: room, text: 'private?' })).data as ChatMessage;
    expect(await gotUpdate([anonymous], message.id)).toEqual([false]);
    anonymous.close();
    a.client.close();
  });

  it('when the room is unknown, then 404 CHAT_ROOM_NOT_FOUND; a bad room id is 400 on data.roomId', async () => {
    const a = await member();
    expect(await a.client.ack('ChatJoin', { roomId: 'nowhere' })).toMatchObject({ status: 404, code: 'CHAT_ROOM_NOT_FOUND' });
    expect(await a.client.ack('ChatLeave', { roomId: 'nowhere' })).toMatchObject({ status: 404, code: 'CHAT_ROOM_NOT_FOUND' });
    for (const data of [{}, { roomId: '' }, { roomId: 'x'.repeat(129) }, { roomId: 7 }]) {
      const ack = await a.client.ack('ChatJoin', data);
      expect(ack).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect(fields(ack)).toEqual(['data.roomId']);
    }
    a.client.close();
  });
});

describe('ChatSendMessage', () => {
  it("when a member sends, then the acknowledgement is the stored message, trimmed, with the sender's username", async () => {
    const room = await newRoom();
    const a = await member();
    const ack = await a.client.ack('ChatSendMessage', { roomId: room, text: '  hello  ' });
    expect(ack).toEqual({
      status: 200,
      data: {
        id: expect.stringMatching(/^\d+$/),
        roomId: room,
        userId: a.user.id,
        username: a.user.username,
        text: 'hello',
        createdAt: expect.any(String),
        deletedAt: null,
      },
    });
    const { rows } = await env.pool.query('SELECT room_id, user_id, username, text FROM chat_messages WHERE id = $1', [
      (ack.data as ChatMessage).id,
    ]);
    expect(rows).toEqual([{ room_id: room, user_id: String(a.user.id), username: a.user.username, text: 'hello' }]);
    a.client.close();
  });

  it('when sent as the generic message with isAck, then it is acknowledged the same way', async () => {
    const room = await newRoom();
    const a = await member();
    const ack = await a.client.ack('message', { event: 'ChatSendMessage', data: { roomId: room, text: 'generic' }, isAck: true });
    expect(ack).toMatchObject({ status: 200, data: { roomId: room, text: 'generic', userId: a.user.id } });
    a.client.close();
  });

  it('when an anonymous socket sends, then 401 with an Unauthorized event, and nothing is stored', async () => {
    const before = await count('chat_messages');
    const c = await env.connect();
    expect(await c.ack('ChatSendMessage', { roomId: 'general', text: 'hi' })).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    await c.waitFor('Unauthorized');
    expect(await count('chat_messages')).toBe(before);
    c.close();
  });

  it.each([
    ['an empty text', { roomId: 'general', text: '' }, 'data.text'],
    ['a text of spaces only', { roomId: 'general', text: '   ' }, 'data.text'],
    ['a text of 501 characters', { roomId: 'general', text: 'x'.repeat(501) }, 'data.text'],
    ['no text', { roomId: 'general' }, 'data.text'],
    ['a numeric text', { roomId: 'general', text: 5 }, 'data.text'],
    ['no room', { text: 'hi' }, 'data.roomId'],
  ])('when the payload has %s, then 400 VALIDATION_FAILED on that field and nothing is stored', async (_name, data, field) => {
    const before = await count('chat_messages');
    const a = await member();
    const ack = await a.client.ack('ChatSendMessage', data);
    expect(ack).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(fields(ack)).toContain(field);
    expect(await count('chat_messages')).toBe(before);
    a.client.close();
  });

  it('when the room is unknown, then 404 CHAT_ROOM_NOT_FOUND', async () => {
    const a = await member();
    expect(await a.client.ack('ChatSendMessage', { roomId: 'nowhere', text: 'hi' })).toMatchObject({
      status: 404,
      code: 'CHAT_ROOM_NOT_FOUND',
    });
    a.client.close();
  });

  it('when the sender has chat disabled (read live), then 403 CHAT_DISABLED and nothing reaches the room; re-enabled, it works at once', async () => {
    const room = await newRoom();
    const watcher = await member();
    await watcher.client.ack('ChatJoin', { roomId: room });
    const a = await member();
    const admin = await env.signedIn({ roles: ['User', 'Admin'], permissions: ['user.edit'] });
    const edit = (canUseChat: boolean) =>
      call(env.adminUrl, 'PATCH', `/user/${a.user.id}`, { headers: bearer(admin.accessToken), body: { canUseChat } });
    expect((await edit(false)).status).toBe(200);
    const before = await count('chat_messages WHERE room_id = $1', [room]);
    expect(await a.client.ack('ChatSendMessage', { roomId: room, text: 'muted?' })).toMatchObject({ status: 403, code: 'CHAT_DISABLED' });
    expect(await count('chat_messages WHERE room_id = $1', [room])).toBe(before);
    expect((await edit(true)).status).toBe(200);
    const sent = await a.client.ack('ChatSendMessage', { roomId: room, text: 'unmuted' });
    expect(sent).toMatchObject({ status: 200, data: { text: 'unmuted' } });
    expect(watcher.client.all('ChatMessageUpdate').map((r) => (r.payload as Update).message.text)).not.toContain('muted?');
    await watcher.client.waitFor<Update>('ChatMessageUpdate', (p) => p.message.text === 'unmuted');
    a.client.close();
    watcher.client.close();
  });

  it('when the sender is banned, then the gateway signs the socket out and the message is refused with 401; nothing is stored', async () => {
    // (The chat's own live ban check, 403 USER_BANNED for a socket not yet signed out, is covered in test/integration/chat.test.ts.)
    const room = await newRoom();
    const a = await member();
    const admin = await env.signedIn({ roles: ['User', 'Admin'], permissions: ['user.ban'] });
    expect(
      (await call(env.adminUrl, 'PATCH', `/user/${a.user.id}/ban`, { headers: bearer(admin.accessToken), body: { banReason: 'spam' } }))
        .status,
    ).toBe(200);
    await a.client.waitFor('AuthError');
    expect(await a.client.ack('ChatSendMessage', { roomId: room, text: 'after ban' })).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(await count('chat_messages WHERE user_id = $1', [a.user.id])).toBe(0);
    a.client.close();
  });

  it('when the sender has no username, then 403 USERNAME_REQUIRED', async () => {
    const a = await member({ username: null });
    expect(await a.client.ack('ChatSendMessage', { roomId: 'general', text: 'hi' })).toMatchObject({
      status: 403,
      code: 'USERNAME_REQUIRED',
    });
    a.client.close();
  });

  it("when a member sends more than the room's limit (set by ChatAdminAction) in a minute, then 429 CHAT_RATE_LIMITED; others can still post", async () => {
    const room = await newRoom();
    const moderator = await member({ roles: ['User', 'Admin'], permissions: ['chat.admin-action'] });
    expect(
      await moderator.client.ack('ChatAdminAction', { action: 'set_rate_limit', args: { roomId: room, messagesPerMinute: 3 } }),
    ).toMatchObject({ status: 200, data: { action: 'set_rate_limit', args: { roomId: room, messagesPerMinute: 3 } } });
    const a = await member();
    for (let i = 0; i < 3; i += 1)
      expect(await a.client.ack('ChatSendMessage', { roomId: room, text: `m${i}` })).toMatchObject({ status: 200 });
    const limited = await a.client.ack('ChatSendMessage', { roomId: room, text: 'one more' });
    expect(limited).toMatchObject({ status: 429, code: 'CHAT_RATE_LIMITED' });
    expect(limited.message).toMatch(/^At most 3 messages per minute in room /);
    expect(await count('chat_messages WHERE room_id = $1 AND user_id = $2', [room, a.user.id])).toBe(3);
    const b = await member();
    expect(await b.client.ack('ChatSendMessage', { roomId: room, text: 'me too' })).toMatchObject({ status: 200 });
    [moderator, a, b].forEach((m) => m.client.close());
  });
});

describe('ChatGetMessages', () => {
  it('when anyone reads a room, then the messages come newest first, `take` at a time, and `before` pages back', async () => {
    const room = await newRoom();
    const a = await member();
    const texts = ['one', 'two', 'three', 'four'];
    for (const text of texts) await a.client.ack('ChatSendMessage', { roomId: room, text });
    const anonymous = await env.connect();
    const first = await anonymous.ack('ChatGetMessages', { roomId: room, take: 3 });
    expect(first.status).toBe(200);
    const page = first.data as ChatMessage[];
    expect(page.map((m) => m.text)).toEqual(['four', 'three', 'two']);
    expect(page[0]).toMatchObject({ roomId: room, userId: a.user.id, username: a.user.username, deletedAt: null });
    const older = await anonymous.ack('ChatGetMessages', { roomId: room, take: 3, before: page.at(-1)!.id });
    expect((older.data as ChatMessage[]).map((m) => m.text)).toEqual(['one']);
    const all = await anonymous.ack('ChatGetMessages', { roomId: room });
    expect((all.data as ChatMessage[]).map((m) => m.text)).toEqual(['four', 'three', 'two', 'one']);
    anonymous.close();
    a.client.close();
  });

  it.each([
    ['take 0', { roomId: 'general', take: 0 }, 'data.take'],
    ['take 51', { roomId: 'general', take: 51 }, 'data.take'],
    ['a fractional take', { roomId: 'general', take: 2.5 }, 'data.take'],
    ['a cursor that is not a message id', { roomId: 'general', before: 'abc' }, 'data.before'],
    ['no room', {}, 'data.roomId'],
  ])('when the query has %s, then 400 VALIDATION_FAILED on that field', async (_name, data, field) => {
    const c = await env.connect();
    const ack = await c.ack('ChatGetMessages', data);
    expect(ack).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(fields(ack)).toContain(field);
    c.close();
  });

  it('when the room is unknown, then 404 CHAT_ROOM_NOT_FOUND', async () => {
    const c = await env.connect();
    expect(await c.ack('ChatGetMessages', { roomId: 'nowhere' })).toMatchObject({ status: 404, code: 'CHAT_ROOM_NOT_FOUND' });
    c.close();
  });
});

describe('moderation reaches the room', () => {
  it('when a moderator deletes a message (ChatAdminAction), then every socket in the room gets ChatMessageUpdate with the deletion and the history drops it', async () => {
    const room = await newRoom();
    const a = await member();
    const b = await member();
    const outsider = await member();
    await a.client.ack('ChatJoin', { roomId: room });
    await b.client.ack('ChatJoin', { roomId: room });
    const message = (await a.client.ack('ChatSendMessage', { roomId: room, text: 'rude' })).data as ChatMessage;
    const moderator = await member({ roles: ['User', 'Admin'], permissions: ['chat.admin-action'] });

    const ack = await moderator.client.ack('ChatAdminAction', { action: 'delete_message', args: { messageId: message.id } });
    expect(ack).toMatchObject({
      status: 200,
      data: { action: 'delete_message', args: { messageId: message.id }, adminUserId: moderator.user.id },
    });
    const deletedAt = (ack.data as { appliedAt: string }).appliedAt;
    for (const c of [a.client, b.client]) {
      const update = await c.waitFor<Update>('ChatMessageUpdate', (p) => p.message.id === message.id && p.message.deletedAt !== null);
      expect(update).toEqual({ roomId: room, message: { ...message, text: '', deletedAt } });
    }
    expect(outsider.client.all('ChatMessageUpdate').filter((r) => (r.payload as Update).message.id === message.id)).toEqual([]);
    const history = await outsider.client.ack('ChatGetMessages', { roomId: room });
    expect((history.data as ChatMessage[]).map((m) => m.id)).not.toContain(message.id);
    [a, b, outsider, moderator].forEach((m) => m.client.close());
  });
});
