import type pg from 'pg';

export type NotificationView = Readonly<{ id: string; type: string; payload: unknown; createdAt: string; viewed: boolean }>;

export type Notifications = Readonly<{
  list(userId: number, take: number): Promise<NotificationView[]>;
  /** Other users' or unknown ids are ignored; undefined `ids` marks all. Returns how many were newly marked. */
  markViewed(userId: number, ids: readonly string[] | undefined): Promise<number>;
}>;

export const createNotifications = (deps: Readonly<{ pool: pg.Pool; clock?: () => Date }>): Notifications => {
  const clock = deps.clock ?? (() => new Date());
  return {
    list: async (userId, take) => {
      const { rows } = await deps.pool.query<{ id: string; type: string; payload: unknown; created_at: Date; viewed: boolean }>(
        `SELECT n.id, n.type, n.payload, n.created_at, (r.notification_id IS NOT NULL) AS viewed
         FROM notifications n LEFT JOIN notification_reads r ON r.notification_id = n.id AND r.user_id = n.user_id
         WHERE n.user_id = $1 ORDER BY n.position_commit DESC, n.position_prepare DESC, n.id LIMIT $2`,
        [userId, take],
      );
      return rows.map((r) => ({ id: r.id, type: r.type, payload: r.payload, createdAt: r.created_at.toISOString(), viewed: r.viewed }));
    },
    markViewed: async (userId, ids) => {
      const { rowCount } = await deps.pool.query(
        `INSERT INTO notification_reads (notification_id, user_id, viewed_at)
         SELECT n.id, n.user_id, $3 FROM notifications n
         WHERE n.user_id = $1 AND ($2::uuid[] IS NULL OR n.id = ANY($2::uuid[]))
         ON CONFLICT (notification_id) DO NOTHING`,
        [userId, ids === undefined ? null : ids, clock()],
      );
      return rowCount ?? 0;
    },
  };
};
