import { isLeft, isRight, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChat, DEFAULT_MESSAGES_PER_MINUTE, type Chat, type ChatError, type ChatMessage } from '../../src/commands/chat.js';
import { recordChatAdminAction } from '../../src/commands/content.js';
import { createUsers, type Users } from '../../src/commands/users.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import type { EventStore } from '../../src/infra/event-store/event-store.port.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { migrateAll } from '../../src/schema.js';

let db: TestDb;
let pool: pg.Pool;
let store: EventStore;
let users: Users;
let chat: Chat;
/** Every message the chat pushed, in order (what the bus would carry as ChatMessageUpdate). */
const pushed: ChatMessage[] = [];
const publish = async (m: ChatMessage) => {
  pushed.push(m);
};

let seq = 0;
const user = async (over: { username?: string | null } = {}) => {
  seq += 1;
  const created = await users.register({
    email: `chat${seq}@example.test`,
    username: over.username === undefined ? `chatter${seq}` : over.username,
    passwordHash: null,
    country: null,
    referrerCode: null,
    marketingOptIn: false,
    provider: 'password',
    registration: { ip: null, userAgent: null, country: null, referrer: null },
  });
  if (isLeft(created)) throw new Error(created.left._tag);
  return created.right.userId;
};
const admin = 9_000_001;

const ok = <T>(r: Either<ChatError, T>): T => {
  if (isLeft(r)) throw new Error(`refused: ${JSON.stringify(r.left)}`);
  return r.right;
};
const refusal = <T>(r: Either<ChatError, T>): ChatError => {
  if (isRight(r)) throw new Error(`accepted: ${JSON.stringify(r.right)}`);
  return r.left;
};
const count = async (sql: string, params: unknown[] = []) =>
  Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, params)).rows[0]!.n);

beforeAll(async () => {
  db = await createTestDb('chat_commands');
  pool = db.pool({ max: 20 });
  await migrateAll(pool);
  store = createPostgresEventStore({ pool, pollIntervalMs: 50 });
  users = createUsers({ store, pool });
  chat = createChat({ pool, publish });
});
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

describe('chat rooms', () => {
  it('when the rooms are listed, then the seeded rooms come in their order with the default limit', async () => {
    const rooms = await chat.rooms();
    expect(rooms.map((r) => r.id)).toEqual(['general', 'en', 'es', 'pt', 'ru']);
    expect(rooms[0]).toEqual({ id: 'general', name: 'General', messagesPerMinute: DEFAULT_MESSAGES_PER_MINUTE });
  });
});

describe('sending a message', () => {
  it('when a user with a username sends, then the message is stored with a snapshot of the username and pushed to the room', async () => {
    const id = await user();
    const sent = ok(await chat.send({ roomId: 'general', userId: id, text: 'hello there' }));
    expect(sent).toEqual({
      id: expect.stringMatching(/^\d+$/),
      roomId: 'general',
      userId: id,
      username: `chatter${seq}`,
      text: 'hello there',
      createdAt: expect.any(String),
      deletedAt: null,
    });
    const { rows } = await pool.query('SELECT room_id, user_id, username, text, deleted_at FROM chat_messages WHERE id = $1', [sent.id]);
    expect(rows).toEqual([{ room_id: 'general', user_id: String(id), username: `chatter${seq}`, text: 'hello there', deleted_at: null }]);
    expect(pushed.at(-1)).toEqual(sent);
  });

  it('when the room does not exist, then ChatRoomNotFound and nothing is stored or pushed', async () => {
    const id = await user();
    const before = [await count('chat_messages'), pushed.length];
    expect(refusal(await chat.send({ roomId: 'nowhere', userId: id, text: 'hi' }))).toEqual({
      _tag: 'ChatRoomNotFound',
      roomId: 'nowhere',
    });
    expect([await count('chat_messages'), pushed.length]).toEqual(before);
  });

  it('when the sender is banned, has chat disabled or has no username, then refused with nothing stored; re-enabled chat works at once', async () => {
    const banned = await user();
    expect(isRight(await users.execute(banned, { type: 'BanUser', data: { reason: 'spam' } }, admin))).toBe(true);
    const muted = await user();
    await users.execute(muted, { type: 'UpdateProfile', data: { changes: { canUseChat: false } } }, admin);
    const nameless = await user({ username: null });
    const before = await count('chat_messages');
    expect(refusal(await chat.send({ roomId: 'general', userId: banned, text: 'x' }))._tag).toBe('ChatUserBanned');
    expect(refusal(await chat.send({ roomId: 'general', userId: muted, text: 'x' }))._tag).toBe('ChatDisabled');
    expect(refusal(await chat.send({ roomId: 'general', userId: nameless, text: 'x' }))._tag).toBe('ChatUsernameRequired');
    expect(refusal(await chat.send({ roomId: 'general', userId: 987_654_321, text: 'x' }))._tag).toBe('ChatUserNotFound');
    expect(await count('chat_messages')).toBe(before);

    await users.execute(muted, { type: 'UpdateProfile', data: { changes: { canUseChat: true } } }, admin);
    expect(ok(await chat.send({ roomId: 'general', userId: muted, text: 'back' })).text).toBe('back');
  });
});

describe('the per-user, per-room rate limit', () => {
  it('when a user sends more than the default limit in a minute, then the next is ChatRateLimited; other rooms and users are not affected', async () => {
    const id = await user();
    const other = await user();
    for (let i = 0; i < DEFAULT_MESSAGES_PER_MINUTE; i += 1) ok(await chat.send({ roomId: 'en', userId: id, text: `m${i}` }));
    const limited = refusal(await chat.send({ roomId: 'en', userId: id, text: 'one too many' }));
    expect(limited).toMatchObject({ _tag: 'ChatRateLimited', roomId: 'en', messagesPerMinute: DEFAULT_MESSAGES_PER_MINUTE });
    expect((limited as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((limited as { retryAfterSeconds: number }).retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(await count('chat_messages WHERE user_id = $1', [id])).toBe(DEFAULT_MESSAGES_PER_MINUTE);
    ok(await chat.send({ roomId: 'es', userId: id, text: 'another room' }));
    ok(await chat.send({ roomId: 'en', userId: other, text: 'another user' }));
  });

  it('when the earlier messages are older than the window, then they no longer count', async () => {
    const id = await user();
    for (let i = 0; i < DEFAULT_MESSAGES_PER_MINUTE; i += 1) ok(await chat.send({ roomId: 'pt', userId: id, text: `m${i}` }));
    expect(refusal(await chat.send({ roomId: 'pt', userId: id, text: 'blocked' }))._tag).toBe('ChatRateLimited');
    // Age the messages instead of waiting: the window is the last 60 s by created_at.
    await pool.query(`UPDATE chat_messages SET created_at = created_at - interval '61 seconds' WHERE user_id = $1`, [id]);
    ok(await chat.send({ roomId: 'pt', userId: id, text: 'allowed again' }));
  });

  it('when an admin sets the room limit, then it replaces the default and parallel sends cannot exceed it', async () => {
    ok(await recordChatAdminAction(pool, { action: 'set_rate_limit', args: { roomId: 'ru', messagesPerMinute: 3 } }, admin));
    expect((await chat.room('ru'))?.messagesPerMinute).toBe(3);
    const id = await user();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => chat.send({ roomId: 'ru', userId: id, text: `p${i}` })));
    expect(results.filter(isRight)).toHaveLength(3);
    expect(results.filter(isLeft).map((r) => (r as { left: ChatError }).left._tag)).toEqual(Array(9).fill('ChatRateLimited'));
    expect(await count(`chat_messages WHERE user_id = $1 AND room_id = 'ru'`, [id])).toBe(3);
  });
});

describe('history', () => {
  it('when messages are read, then they come newest first, `take` at a time, `before` pages back, deleted ones are left out', async () => {
    await pool.query(`INSERT INTO chat_rooms (id, name, position) VALUES ('history', 'History', 50)`);
    const [a, b] = [await user(), await user()];
    const sent: ChatMessage[] = [];
    for (let i = 0; i < 6; i += 1) sent.push(ok(await chat.send({ roomId: 'history', userId: i % 2 ? a : b, text: `h${i}` })));
    ok(await recordChatAdminAction(pool, { action: 'delete_message', args: { messageId: sent[4]!.id } }, admin));
    const first = ok(await chat.history({ roomId: 'history', take: 3 }));
    expect(first.map((m) => m.text)).toEqual(['h5', 'h3', 'h2']);
    const next = ok(await chat.history({ roomId: 'history', take: 3, before: first.at(-1)!.id }));
    expect(next.map((m) => m.text)).toEqual(['h1', 'h0']);
    expect(next[0]).toEqual(sent[1]);
    expect(refusal(await chat.history({ roomId: 'nowhere', take: 3 }))._tag).toBe('ChatRoomNotFound');
  });
});

describe('moderation (recordChatAdminAction)', () => {
  it('when a message is deleted, then it is marked deleted by the admin, the moderation is recorded as applied, and the deletion is pushed without the text', async () => {
    const id = await user();
    const sent = ok(await chat.send({ roomId: 'general', userId: id, text: 'rude words' }));
    const published: ChatMessage[] = [];
    const moderation = ok(
      await recordChatAdminAction(pool, { action: 'delete_message', args: { messageId: sent.id } }, admin, async (m) => {
        published.push(m);
      }),
    );
    expect(moderation).toEqual({
      id: expect.any(String),
      action: 'delete_message',
      args: { messageId: sent.id },
      adminUserId: admin,
      createdAt: expect.any(String),
      appliedAt: moderation.createdAt,
    });
    const {
      rows: [row],
    } = await pool.query<{ deleted_at: Date; deleted_by: string; text: string }>(
      'SELECT deleted_at, deleted_by, text FROM chat_messages WHERE id = $1',
      [sent.id],
    );
    expect(row!.deleted_by).toBe(String(admin));
    expect(row!.deleted_at.toISOString()).toBe(moderation.appliedAt);
    expect(row!.text).toBe('rude words'); // kept for the audit trail, never served again
    expect(published).toEqual([{ ...sent, text: '', deletedAt: moderation.appliedAt }]);
    const { rows: recorded } = await pool.query(
      'SELECT action, args, admin_user_id, applied_at IS NOT NULL AS applied FROM chat_moderation WHERE id = $1',
      [moderation.id],
    );
    expect(recorded).toEqual([{ action: 'delete_message', args: { messageId: sent.id }, admin_user_id: String(admin), applied: true }]);
  });

  it('when the message is unknown, not an id, or already deleted, then refused and nothing is recorded or pushed', async () => {
    const id = await user();
    const sent = ok(await chat.send({ roomId: 'general', userId: id, text: 'bye' }));
    ok(await recordChatAdminAction(pool, { action: 'delete_message', args: { messageId: sent.id } }, admin));
    const before = await count('chat_moderation');
    const published: ChatMessage[] = [];
    const push = async (m: ChatMessage) => {
      published.push(m);
    };
    expect(refusal(await recordChatAdminAction(pool, { action: 'delete_message', args: { messageId: sent.id } }, admin, push))._tag).toBe(
      'ChatMessageAlreadyDeleted',
    );
    expect(
      refusal(await recordChatAdminAction(pool, { action: 'delete_message', args: { messageId: '99999999' } }, admin, push))._tag,
    ).toBe('ChatMessageNotFound');
    expect(refusal(await recordChatAdminAction(pool, { action: 'delete_message', args: { messageId: 'm-1' } }, admin, push))._tag).toBe(
      'ChatMessageNotFound',
    );
    expect(
      refusal(
        await recordChatAdminAction(pool, { action: 'set_rate_limit', args: { roomId: 'nowhere', messagesPerMinute: 5 } }, admin, push),
      )._tag,
    ).toBe('ChatRoomNotFound');
    expect(await count('chat_moderation')).toBe(before);
    expect(await count(`chat_room_limits WHERE room_id = 'nowhere'`)).toBe(0);
    expect(published).toEqual([]);
  });
});
