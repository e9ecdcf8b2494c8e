import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { recordAdminAction } from './admin-actions.store.js';
import { inTransaction } from '../infra/pg.js';
import { deleteMessageIn, findRoom, type ChatError, type ChatMessage, type ChatPublish } from './chat.js';

export type Faq = Readonly<{ id: number; title: string; text: string; order: number }>;
type FaqRow = { id: number; title: string; text: string; order: number };

const FAQ_COLUMNS = 'id, title, text, "order"';
// FAQ writes serialise on this lock so that `order` stays 1..n without gaps or duplicates.
const LOCK_FAQ = 'LOCK TABLE faq IN SHARE ROW EXCLUSIVE MODE';

export const listFaq = async (pool: pg.Pool): Promise<Faq[]> =>
  (await pool.query<FaqRow>(`SELECT ${FAQ_COLUMNS} FROM faq ORDER BY "order", id`)).rows;

export const createFaq = (pool: pg.Pool, input: { title: string; text: string }, adminUserId: number): Promise<Faq> =>
  inTransaction(pool, async (c) => {
    await c.query(LOCK_FAQ);
    const {
      rows: [faq],
    } = await c.query<FaqRow>(
      `INSERT INTO faq (title, text, "order", created_by, updated_by) SELECT $1, $2, COALESCE(max("order"), 0) + 1, $3, $3 FROM faq
       RETURNING ${FAQ_COLUMNS}`,
      [input.title, input.text, adminUserId],
    );
    await recordAdminAction(c, { adminUserId, action: 'faq.create', details: { faq } });
    return faq!;
  });

/** Edits an FAQ; a new `order` (clamped to 1..n) moves it there and shifts the ones in between by one. */
export const updateFaq = (
  pool: pg.Pool,
  input: { id: number; title?: string | undefined; text?: string | undefined; order?: number | undefined },
  adminUserId: number,
): Promise<Faq | undefined> =>
  inTransaction(pool, async (c) => {
    await c.query(LOCK_FAQ);
    const {
      rows: [current],
    } = await c.query<FaqRow>(`SELECT ${FAQ_COLUMNS} FROM faq WHERE id = $1`, [input.id]);
    if (!current) return undefined;
    let order = current.order;
    if (input.order !== undefined) {
      const n = (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM faq')).rows[0]?.n ?? 1;
      order = Math.min(Math.max(input.order, 1), n);
      if (order < current.order)
        await c.query('UPDATE faq SET "order" = "order" + 1 WHERE "order" >= $1 AND "order" < $2', [order, current.order]);
      if (order > current.order)
        await c.query('UPDATE faq SET "order" = "order" - 1 WHERE "order" > $1 AND "order" <= $2', [current.order, order]);
    }
    const {
      rows: [faq],
    } = await c.query<FaqRow>(
      `UPDATE faq SET title = $2, text = $3, "order" = $4, updated_by = $5, updated_at = now() WHERE id = $1 RETURNING ${FAQ_COLUMNS}`,
      [input.id, input.title ?? current.title, input.text ?? current.text, order, adminUserId],
    );
    await recordAdminAction(c, { adminUserId, action: 'faq.update', details: { before: current, after: faq } });
    return faq;
  });

export const deleteFaq = (pool: pg.Pool, id: number, adminUserId: number): Promise<Faq | undefined> =>
  inTransaction(pool, async (c) => {
    await c.query(LOCK_FAQ);
    const {
      rows: [faq],
    } = await c.query<FaqRow>(`DELETE FROM faq WHERE id = $1 RETURNING ${FAQ_COLUMNS}`, [id]);
    if (faq) await c.query('UPDATE faq SET "order" = "order" - 1 WHERE "order" > $1', [faq.order]);
    if (faq) await recordAdminAction(c, { adminUserId, action: 'faq.delete', details: { faq } });
    return faq;
  });

export type ChatAdminAction =
  | Readonly<{ action: 'delete_message'; args: Readonly<{ messageId: string }> }>
  | Readonly<{ action: 'set_rate_limit'; args: Readonly<{ roomId: string; messagesPerMinute: number }> }>;

export type ChatModeration = Readonly<{
  id: string;
  action: ChatAdminAction['action'];
  args: ChatAdminAction['args'];
  adminUserId: number;
  createdAt: string;
  appliedAt: string;
}>;

/** Applies a chat moderation and records it in one transaction; refused, with nothing recorded, for unknown targets. */
export const recordChatAdminAction = async (
  pool: pg.Pool,
  input: ChatAdminAction,
  adminUserId: number,
  publish?: ChatPublish,
): Promise<Either<ChatError, ChatModeration>> => {
  const applied = await inTransaction(
    pool,
    async (c): Promise<Either<ChatError, { moderation: ChatModeration; deleted?: ChatMessage }>> => {
      const {
        rows: [clock],
      } = await c.query<{ now: Date }>('SELECT clock_timestamp() AS now');
      const at = clock!.now;
      let deleted: ChatMessage | undefined;
      if (input.action === 'delete_message') {
        const result = await deleteMessageIn(c, input.args.messageId, adminUserId, at);
        if (isLeft(result)) return result;
        deleted = result.right;
      } else {
        if (!(await findRoom(c, input.args.roomId))) return left({ _tag: 'ChatRoomNotFound', roomId: input.args.roomId });
        await c.query(
          `INSERT INTO chat_room_limits (room_id, messages_per_minute, updated_by, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (room_id) DO UPDATE SET messages_per_minute = EXCLUDED.messages_per_minute, updated_by = EXCLUDED.updated_by,
           updated_at = EXCLUDED.updated_at`,
          [input.args.roomId, input.args.messagesPerMinute, adminUserId, at],
        );
      }
      const {
        rows: [row],
      } = await c.query<{ id: string }>(
        'INSERT INTO chat_moderation (action, args, admin_user_id, created_at, applied_at) VALUES ($1, $2, $3, $4, $4) RETURNING id::text',
        [input.action, JSON.stringify(input.args), adminUserId, at],
      );
      const moderation = {
        id: row!.id,
        action: input.action,
        args: input.args,
        adminUserId,
        createdAt: at.toISOString(),
        appliedAt: at.toISOString(),
      };
      return right(deleted ? { moderation, deleted } : { moderation });
    },
  );
  if (isLeft(applied)) return applied;
  if (applied.right.deleted && publish) await publish(applied.right.deleted);
  return right(applied.right.moderation);
};
