import type pg from 'pg';
import { offsetOf, pageOf, type Page, type PageRequest } from '../shared/page.js';
import type { LeaderboardStatus, LeaderboardType } from './leaderboard.rules.js';
import {
  leaderboardUserView,
  leaderboardView,
  scheduleView,
  type LeaderboardRow,
  type LeaderboardUserRow,
  type LeaderboardView,
  type ScheduleRow,
} from './leaderboards.views.js';

/** Schedules show their most recent leaderboards, not their whole history. */
const SCHEDULE_LEADERBOARDS = 10;
/** withUsers adds the top 50 (spec, Limits). */
const TOP_USERS = 50;

const USER_COLUMNS = `lu.*, u.username, u.is_banned, u.profile,
  (SELECT trim_scale(s.total_wagered)::text FROM user_stats_usd s WHERE s.user_id = lu.user_id) AS wagered`;
const USER_JOIN = `FROM leaderboard_users lu LEFT JOIN users u ON u.id = lu.user_id`;

export type LeaderboardQuery = PageRequest &
  Readonly<{
    withUsers?: boolean | undefined;
    withSchedule?: boolean | undefined;
    type?: LeaderboardType | undefined;
    status?: LeaderboardStatus | undefined;
    sortOrder: 'asc' | 'desc';
  }>;
export type LeaderboardUsersQuery = PageRequest &
  Readonly<{ search?: string | undefined; isWinner?: boolean | undefined; isWaitingForPrice?: boolean | undefined }>;

export const createLeaderboardQueries = (pool: pg.Pool) => {
  const topUsers = async (ids: readonly string[]) => {
    if (ids.length === 0) return new Map<string, ReturnType<typeof leaderboardUserView>[]>();
    const { rows } = await pool.query<LeaderboardUserRow>(
      `SELECT ${USER_COLUMNS} ${USER_JOIN} WHERE lu.leaderboard_id = ANY($1::text[]) AND lu.position <= $2
       ORDER BY lu.leaderboard_id, lu.position`,
      [ids, TOP_USERS],
    );
    const out = new Map<string, ReturnType<typeof leaderboardUserView>[]>();
    for (const r of rows) out.set(r.leaderboard_id, [...(out.get(r.leaderboard_id) ?? []), leaderboardUserView(r)]);
    return out;
  };

  const schedules = async (id?: string) => {
    const { rows } = await pool.query<ScheduleRow>(
      `SELECT * FROM leaderboard_schedules WHERE $1::text IS NULL OR id = $1
       ORDER BY array_position(ARRAY['DAILY','WEEKLY','MONTHLY'], type)`,
      [id ?? null],
    );
    const { rows: boards } = await pool.query<LeaderboardRow>(
      `SELECT l.* FROM leaderboard_schedules s CROSS JOIN LATERAL (
         SELECT * FROM leaderboards WHERE schedule_id = s.id ORDER BY start_date DESC LIMIT $2) l
       WHERE $1::text IS NULL OR s.id = $1`,
      [id ?? null, SCHEDULE_LEADERBOARDS],
    );
    return rows.map((s) => scheduleView(s, boards.filter((b) => b.schedule_id === s.id).map(leaderboardView)));
  };

  return {
    schedules: () => schedules(),
    schedule: async (id: string) => (await schedules(id))[0],

    list: async (q: LeaderboardQuery): Promise<Page<LeaderboardView & Record<string, unknown>>> => {
      const where = `($1::text IS NULL OR l.type = $1) AND ($2::text IS NULL OR l.status = $2)`;
      const order = q.sortOrder === 'asc' ? 'ASC' : 'DESC';
      const [{ rows }, { rows: count }] = await Promise.all([
        pool.query<LeaderboardRow & { s_enabled: boolean | null; s_name: string | null; s_description: string | null; s_prizes: unknown }>(
          `SELECT l.*, s.enabled AS s_enabled, s.name AS s_name, s.description AS s_description, s.prizes AS s_prizes
           FROM leaderboards l LEFT JOIN leaderboard_schedules s ON s.id = l.schedule_id
           WHERE ${where} ORDER BY l.created_at ${order}, l.id ${order} LIMIT $3 OFFSET $4`,
          [q.type ?? null, q.status ?? null, q.take, offsetOf(q)],
        ),
        pool.query<{ n: string }>(`SELECT count(*) AS n FROM leaderboards l WHERE ${where}`, [q.type ?? null, q.status ?? null]),
      ]);
      const users = q.withUsers ? await topUsers(rows.map((r) => r.id)) : undefined;
      const data = rows.map((r) => ({
        ...leaderboardView(r),
        ...(users ? { leaderboardUsers: users.get(r.id) ?? [] } : {}),
        ...(q.withSchedule
          ? {
              schedule:
                r.schedule_id === null
                  ? null
                  : {
                      id: r.schedule_id,
                      enabled: r.s_enabled,
                      config: { type: r.type, name: r.s_name, description: r.s_description, prizes: r.s_prizes },
                    },
            }
          : {}),
      }));
      return pageOf(data, Number(count[0]!.n), q);
    },

    one: async (id: string) => {
      const { rows } = await pool.query<LeaderboardRow>('SELECT * FROM leaderboards WHERE id = $1', [id]);
      return rows[0] ? leaderboardView(rows[0]) : undefined;
    },

    users: async (leaderboardId: string, q: LeaderboardUsersQuery) => {
      const search = q.search?.trim() || null;
      const pattern = search === null ? null : `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const searchedId = search !== null && /^\d{1,15}$/.test(search) ? Number(search) : null;
      const where = `lu.leaderboard_id = $1
        AND ($2::text IS NULL OR lu.user_id = $3::bigint OR u.username ILIKE $2)
        AND ($4::boolean IS NULL OR lu.is_winner = $4)
        AND ($5::boolean IS NULL OR (lu.is_winner AND lu.remaining_usd_prize > 0) = $5)`;
      const params = [leaderboardId, pattern, searchedId, q.isWinner ?? null, q.isWaitingForPrice ?? null];
      const [{ rows }, { rows: count }] = await Promise.all([
        pool.query<LeaderboardUserRow>(
          `SELECT ${USER_COLUMNS} ${USER_JOIN} WHERE ${where} ORDER BY lu.position, lu.id LIMIT $6 OFFSET $7`,
          [...params, q.take, offsetOf(q)],
        ),
        pool.query<{ n: string }>(`SELECT count(*) AS n ${USER_JOIN} WHERE ${where}`, params),
      ]);
      return pageOf(rows.map(leaderboardUserView), Number(count[0]!.n), q);
    },

    user: async (leaderboardId: string, userId: number) => {
      const { rows } = await pool.query<LeaderboardUserRow>(
        `SELECT ${USER_COLUMNS} ${USER_JOIN} WHERE lu.leaderboard_id = $1 AND lu.user_id = $2`,
        [leaderboardId, userId],
      );
      return rows[0] ? leaderboardUserView(rows[0]) : undefined;
    },
  };
};
export type LeaderboardQueries = ReturnType<typeof createLeaderboardQueries>;
