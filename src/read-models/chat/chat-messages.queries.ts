import type pg from 'pg';

export type RecentChatMessage = Readonly<{
  id: string;
  roomId: string;
  userId: number;
  username: string;
  text: string;
  createdAt: string;
  /** Whether the sender may chat now (their profile's canUseChat): false once muted. */
  senderCanUseChat: boolean;
}>;

/** A room's newest visible messages, newest first, on the room's history index (chat_messages_room_id). */
export const recentChatMessages = async (pool: pg.Pool, roomId: string, take: number): Promise<RecentChatMessage[]> => {
  const { rows } = await pool.query<{
    id: string;
    room_id: string;
    user_id: string;
    username: string;
    text: string;
    created_at: Date;
    can_use_chat: boolean | null;
  }>(
    `SELECT m.id::text, m.room_id, m.user_id, m.username, m.text, m.created_at,
        (u.profile->>'canUseChat')::boolean AS can_use_chat
       FROM (SELECT * FROM chat_messages WHERE room_id = $1 AND deleted_at IS NULL ORDER BY id DESC LIMIT $2) m
       LEFT JOIN users u ON u.id = m.user_id
      ORDER BY m.id DESC`,
    [roomId, take],
  );
  return rows.map((r) => ({
    id: r.id,
    roomId: r.room_id,
    userId: Number(r.user_id),
    username: r.username,
    text: r.text,
    createdAt: r.created_at.toISOString(),
    senderCanUseChat: r.can_use_chat !== false,
  }));
};
