import type pg from 'pg';
import { ROLES } from '../../domain/user/permissions.js';
import { direction, listPage, type AnyRow, type Listed, type SortOrder } from '../list-page.js';
import type { PageRequest } from '../../shared/page.js';
import { compileWhere, escapeLike, SqlParams, type FieldMap } from '../where.js';
import { BALANCE_USD_SQL, coreOfRow, EXTRA_COLUMNS, fullUser, LAST_LOGIN_SQL, VIP_LEVEL_SQL } from './user-record.js';

type UserSort =
  'id' | 'username' | 'email' | 'createdAt' | 'totalWagered' | 'totalLoss' | 'ggr' | 'vipLevel' | 'ltv' | 'balance' | 'lastLoginAt';

export type UsersFilter = PageRequest &
  Readonly<{
    sortBy: UserSort;
    sortOrder: SortOrder;
    where?: Readonly<Record<string, unknown>> | undefined;
    isBanned?: boolean | undefined;
    role?: string | undefined;
    search?: string | undefined;
    withPermissions: boolean;
    withRoles: boolean;
    withNotes: boolean;
    withBalance: boolean;
    withStatsUsd: boolean;
  }>;

const USER_FIELDS: FieldMap = {
  vipLevel: { kind: 'number', column: VIP_LEVEL_SQL },
  statsUsd: {
    kind: 'nested',
    fields: {
      totalWagered: { kind: 'decimal', column: 'coalesce(s.total_wagered, 0)' },
      ltv: { kind: 'decimal', column: 'coalesce(s.ltv, 0)' },
    },
  },
  balancePlatformToken: { kind: 'nested', fields: { amount: { kind: 'decimal', column: 'coalesce(pt.balance, 0)' } } },
  createdAt: { kind: 'date', column: 'u.created_at' },
};

/** Sort expressions; users without stats, balances or logins count as zero / never (last in both directions for logins). */
const USER_SORT: Record<UserSort, string> = {
  id: 'u.id',
  username: 'lower(u.username)',
  email: 'lower(u.email)',
  createdAt: 'u.created_at',
  totalWagered: 'coalesce(s.total_wagered, 0)',
  totalLoss: 'coalesce(s.ggr, 0)',
  ggr: 'coalesce(s.ggr, 0)',
  vipLevel: VIP_LEVEL_SQL,
  ltv: 'coalesce(s.ltv, 0)',
  balance: BALANCE_USD_SQL,
  lastLoginAt: LAST_LOGIN_SQL,
};

/** GET and POST /user/all: full user records, filtered, searched and sorted. */
export const listUsers = (pool: pg.Pool, q: UsersFilter): Promise<Listed<unknown>> => {
  const p = new SqlParams();
  const conditions = compileWhere(USER_FIELDS, q.where, p);
  if (q.isBanned !== undefined) conditions.push(`u.is_banned = ${p.add(q.isBanned)}`);
  if (q.role !== undefined) conditions.push(`u.roles @> ARRAY[${p.add(q.role)}::text]`);
  if (q.search !== undefined) {
    const like = p.add(`%${escapeLike(q.search)}%`);
    const byId = /^\d{1,15}$/.test(q.search) ? ` OR u.id = ${p.add(q.search)}::bigint` : '';
    conditions.push(`(u.username ILIKE ${like} ESCAPE '\\' OR u.email ILIKE ${like} ESCAPE '\\'${byId})`);
  }
  const dir = direction(q.sortOrder);
  const flags = {
    permissions: q.withPermissions,
    roles: q.withRoles,
    notes: q.withNotes,
    balance: q.withBalance,
    statsUsd: q.withStatsUsd,
  };
  return listPage<AnyRow, unknown>(
    pool,
    {
      select: `u.*, ${EXTRA_COLUMNS}`,
      from: `users u LEFT JOIN user_stats_usd s ON s.user_id = u.id
      LEFT JOIN wallet_balances pt ON pt.user_id = u.id AND pt.currency_id = 'PLATFORM_TOKEN'`,
      conditions,
      orderBy: `${USER_SORT[q.sortBy]} ${dir} NULLS LAST, u.id ${dir}`,
    },
    p,
    q,
    (r) => fullUser(coreOfRow(r), r, flags),
  );
};

export type UserSearchHit = Readonly<{
  id: number;
  username: string | null;
  email: string | null;
  isBanned: boolean;
  roles: string[];
  createdAt: string;
}>;

/** GET /user/search: by part of the name or e-mail, or the exact id; newest first. */
export const searchUsers = (pool: pg.Pool, q: PageRequest & Readonly<{ search: string }>): Promise<Listed<UserSearchHit>> => {
  const p = new SqlParams();
  const like = p.add(`%${escapeLike(q.search)}%`);
  const byId = /^\d{1,15}$/.test(q.search) ? ` OR u.id = ${p.add(q.search)}::bigint` : '';
  return listPage<AnyRow, UserSearchHit>(
    pool,
    {
      select: 'u.id, u.username, u.email, u.is_banned, u.roles, u.created_at',
      from: 'users u',
      conditions: [`(u.username ILIKE ${like} ESCAPE '\\' OR u.email ILIKE ${like} ESCAPE '\\'${byId})`],
      orderBy: 'u.id DESC',
    },
    p,
    q,
    (r) => ({
      id: Number(r.id),
      username: r.username,
      email: r.email,
      isBanned: r.is_banned,
      roles: r.roles,
      createdAt: (r.created_at as Date).toISOString(),
    }),
  );
};

/** GET /user/get-all-roles-with-users: every role with its holders; `User` (held by everyone) answers its count only. */
export const rolesWithUsers = async (pool: pg.Pool) => {
  const { rows } = await pool.query<{
    role: string;
    count: number;
    users: { id: number; username: string | null; email: string | null }[];
  }>(
    `SELECT r.role, count(u.id)::int AS count,
         coalesce(json_agg(json_build_object('id', u.id, 'username', u.username, 'email', u.email) ORDER BY u.id)
           FILTER (WHERE u.id IS NOT NULL AND r.role <> 'User'), '[]'::json) AS users
       FROM unnest($1::text[]) AS r(role) LEFT JOIN users u ON u.roles @> ARRAY[r.role]
       GROUP BY r.role ORDER BY array_position($1::text[], r.role)`,
    [[...ROLES]],
  );
  return rows.map((r) => ({ role: r.role, usersCount: r.count, users: r.users.map((u) => ({ ...u, id: Number(u.id) })) }));
};

/** GET /user/get-admins-with-roles. */
export const adminsWithRoles = async (pool: pg.Pool) => {
  const { rows } = await pool.query<AnyRow>(
    `SELECT id, username, email, roles, permissions, is_banned FROM users WHERE roles && ARRAY['Admin', 'SuperAdmin']::text[] ORDER BY id`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    username: r.username,
    email: r.email,
    isBanned: r.is_banned,
    roles: (r.roles as string[]).map((role) => ({ role, userId: Number(r.id) })),
    permissions: r.permissions,
  }));
};

/** GET /registration-info/:userId: how and from where the user signed up; undefined when there is no record. */
export const registrationInfo = async (pool: pg.Pool, userId: number) => {
  const { rows } = await pool.query<{
    user_id: string;
    ip: string | null;
    user_agent: string | null;
    country: string | null;
    referrer: string | null;
    referrer_code: string | null;
    provider: string;
    created_at: Date;
  }>('SELECT * FROM registration_info WHERE user_id = $1', [userId]);
  const r = rows[0];
  if (!r) return undefined;
  return {
    userId: Number(r.user_id),
    ip: r.ip,
    userAgent: r.user_agent,
    country: r.country,
    referrer: r.referrer,
    referrerCode: r.referrer_code,
    provider: r.provider,
    createdAt: r.created_at.toISOString(),
  };
};
