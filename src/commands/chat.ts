import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { inTransaction } from '../infra/pg.js';
import type { Logger } from '../infra/logger.js';
import type { ServerEventBus } from '../infra/bus.js';
import { chatRoom } from '../shared/rooms.js';

/** A room's per-user limit when no admin set one (POST /chat/admin-action set_rate_limit). */
export const DEFAULT_MESSAGES_PER_MINUTE = 10;
/** The rate limit counts a user's messages in a room over this sliding window. */
export const RATE_WINDOW_SECONDS = 60;

export type ChatRoom = Readonly<{ id: string; name: string; messagesPerMinute: number }>;

/** A chat message as clients see it; a deleted message keeps its id and author but loses its text. */
export type ChatMessage = Readonly<{
  id: string;
  roomId: string;
  userId: number;
  username: string;
  text: string;
  createdAt: string;
  deletedAt: string | null;
}>;

export type ChatError =
  | Readonly<{ _tag: 'ChatRoomNotFound'; roomId: string }>
  | Readonly<{ _tag: 'ChatMessageNotFound'; messageId: string }>
  | Readonly<{ _tag: 'ChatMessageAlreadyDeleted'; messageId: string }>
  | Readonly<{ _tag: 'ChatUserNotFound'; userId: number }>
  | Readonly<{ _tag: 'ChatUserBanned'; userId: number }>
  | Readonly<{ _tag: 'ChatDisabled'; userId: number }>
  | Readonly<{ _tag: 'ChatUsernameRequired'; userId: number }>
  | Readonly<{ _tag: 'ChatRateLimited'; roomId: string; messagesPerMinute: number; retryAfterSeconds: number }>;

export type ChatPublish = (message: ChatMessage) => Promise<void>;

export const chatPublisher =
  (bus: ServerEventBus, logger?: Logger): ChatPublish =>
  async (message) => {
    try {
      await bus.publish('ChatMessageUpdate', { room: chatRoom(message.roomId), payload: { roomId: message.roomId, message } });
    } catch (error) {
      logger?.warn({ err: error, roomId: message.roomId, messageId: message.id }, 'ChatMessageUpdate not published');
    }
  };

type MessageRow = {
  id: string;
  room_id: string;
  user_id: string;
  username: string;
  text: string;
  created_at: Date;
  deleted_at: Date | null;
};
const MESSAGE_COLUMNS = 'id::text, room_id, user_id, username, text, created_at, deleted_at';

const messageOf = (r: MessageRow): ChatMessage => ({
  id: r.id,
  roomId: r.room_id,
  userId: Number(r.user_id),
  username: r.username,
  text: r.deleted_at === null ? r.text : '',
  createdAt: r.created_at.toISOString(),
  deletedAt: r.deleted_at?.toISOString() ?? null,
});

const ROOM_SELECT = `SELECT r.id, r.name, COALESCE(l.messages_per_minute, ${DEFAULT_MESSAGES_PER_MINUTE}) AS messages_per_minute
  FROM chat_rooms r LEFT JOIN chat_room_limits l ON l.room_id = r.id`;
type RoomRow = { id: string; name: string; messages_per_minute: number };
const roomOf = (r: RoomRow): ChatRoom => ({ id: r.id, name: r.name, messagesPerMinute: r.messages_per_minute });

/** Message ids are bigserial; anything else names no message. */
const MESSAGE_ID = /^[1-9]\d{0,17}$/;

type Queryable = Pick<pg.PoolClient, 'query'>;

export const findRoom = async (db: Queryable, roomId: string): Promise<ChatRoom | undefined> => {
  const {
    rows: [row],
  } = await db.query<RoomRow>(`${ROOM_SELECT} WHERE r.id = $1`, [roomId]);
  return row && roomOf(row);
};

export const deleteMessageIn = async (
  c: Queryable,
  messageId: string,
  adminUserId: number,
  at: Date,
): Promise<Either<ChatError, ChatMessage>> => {
  if (!MESSAGE_ID.test(messageId)) return left({ _tag: 'ChatMessageNotFound', messageId });
  const {
    rows: [current],
  } = await c.query<{ deleted: boolean }>('SELECT deleted_at IS NOT NULL AS deleted FROM chat_messages WHERE id = $1 FOR UPDATE', [
    messageId,
  ]);
  if (!current) return left({ _tag: 'ChatMessageNotFound', messageId });
  if (current.deleted) return left({ _tag: 'ChatMessageAlreadyDeleted', messageId });
  const {
    rows: [row],
  } = await c.query<MessageRow>(`UPDATE chat_messages SET deleted_at = $2, deleted_by = $3 WHERE id = $1 RETURNING ${MESSAGE_COLUMNS}`, [
    messageId,
    at,
    adminUserId,
  ]);
  return right(messageOf(row!));
};

export type SendInput = Readonly<{ roomId: string; userId: number; text: string }>;
export type HistoryInput = Readonly<{ roomId: string; take: number; before?: string | undefined }>;

export const createChat = ({ pool, publish }: Readonly<{ pool: pg.Pool; publish: ChatPublish }>) => {
  /** Count and insert share a per-(room, user) advisory lock and one clock reading: exact under parallel sends. */
  const send = async (input: SendInput): Promise<Either<ChatError, ChatMessage>> => {
    const sent = await inTransaction(pool, async (c): Promise<Either<ChatError, ChatMessage>> => {
      const room = await findRoom(c, input.roomId);
      if (!room) return left({ _tag: 'ChatRoomNotFound', roomId: input.roomId });
      const {
        rows: [user],
      } = await c.query<{ is_banned: boolean; username: string | null; chat_disabled: boolean | null }>(
        `SELECT is_banned, username, (state->'profile'->'canUseChat') = 'false'::jsonb AS chat_disabled FROM user_access
         WHERE user_id = $1`,
        [input.userId],
      );
      if (!user) return left({ _tag: 'ChatUserNotFound', userId: input.userId });
      if (user.is_banned) return left({ _tag: 'ChatUserBanned', userId: input.userId });
      if (user.chat_disabled === true) return left({ _tag: 'ChatDisabled', userId: input.userId });
      if (user.username === null) return left({ _tag: 'ChatUsernameRequired', userId: input.userId });

      await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`chat-send:${input.roomId}:${input.userId}`]);
      const {
        rows: [recent],
      } = await c.query<{ now: Date; n: number; oldest: Date | null }>(
        `SELECT t.now, count(m.id)::int AS n, min(m.created_at) AS oldest
         FROM (SELECT clock_timestamp() AS now) t
         LEFT JOIN chat_messages m ON m.room_id = $1 AND m.user_id = $2 AND m.created_at > t.now - make_interval(secs => $3)
         GROUP BY t.now`,
        [input.roomId, input.userId, RATE_WINDOW_SECONDS],
      );
      const { now, n, oldest } = recent!;
      if (n >= room.messagesPerMinute) {
        const freesAt = (oldest ?? now).getTime() + RATE_WINDOW_SECONDS * 1000;
        return left({
          _tag: 'ChatRateLimited',
          roomId: room.id,
          messagesPerMinute: room.messagesPerMinute,
          retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)),
        });
      }
      const {
        rows: [row],
      } = await c.query<MessageRow>(
        `INSERT INTO chat_messages (room_id, user_id, username, text, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${MESSAGE_COLUMNS}`,
        [room.id, input.userId, user.username, input.text, now],
      );
      return right(messageOf(row!));
    });
    if (sent._tag === 'Right') await publish(sent.right);
    return sent;
  };

  /** The room's visible (not deleted) messages, newest first; `before` (a message id) pages back in time. */
  const history = async (input: HistoryInput): Promise<Either<ChatError, ChatMessage[]>> => {
    if (!(await findRoom(pool, input.roomId))) return left({ _tag: 'ChatRoomNotFound', roomId: input.roomId });
    const { rows } = await pool.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM chat_messages
       WHERE room_id = $1 AND deleted_at IS NULL AND ($2::bigint IS NULL OR id < $2::bigint)
       ORDER BY id DESC LIMIT $3`,
      [input.roomId, input.before ?? null, input.take],
    );
    return right(rows.map(messageOf));
  };

  return {
    send,
    history,
    rooms: async (): Promise<ChatRoom[]> => (await pool.query<RoomRow>(`${ROOM_SELECT} ORDER BY r.position, r.id`)).rows.map(roomOf),
    room: (roomId: string): Promise<ChatRoom | undefined> => findRoom(pool, roomId),
  };
};
export type Chat = ReturnType<typeof createChat>;
