import { Router, type Request } from 'express';
import { authOf } from './auth.adapter.js';
import { hashPassword } from '../auth/passwords.js';
import { ROLES } from '../domain/user/permissions.js';
import { guardedRoutes } from './access.js';
import {
  CreateAdminUserBody,
  UserSearchHit,
  UserSearchQuery,
  UsersBody,
  UsersQuery,
  type UsersListRequest,
} from './admin-users-list.schemas.js';
import { BALANCE_USD_SQL, coreOfRow, EXTRA_COLUMNS, fullUser, fullUserOf, LAST_LOGIN_SQL, VIP_LEVEL_SQL } from './admin-users.view.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { orThrowUser, zodToHttp } from './errors.js';
import { compileWhere, escapeLike, nestedQuery, SqlParams, type FieldMap } from './filters.js';
import { direction, listPage } from './ledger-lists.views.js';
import { parseBody, parseQuery, type z } from './validate.js';
import { Paginated, UntypedList, UserRecord } from './openapi.schemas.js';

type AnyRow = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

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
const USER_SORT: Record<UsersListRequest['sortBy'], string> = {
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

/** Query strings with nested keys (`where[vipLevel][gte]=1`) or a JSON `where`, validated like parseQuery. */
const parseNestedQuery = <S extends z.ZodType>(schema: S, req: Request): z.output<S> => {
  const result = schema.safeParse(nestedQuery(req.originalUrl));
  if (!result.success) throw zodToHttp(result.error, 'query');
  return result.data;
};

/** SuperAdmin user lists and admin creation (spec Endpoints, /user/...); fixed paths, mounted before /user/:id. */
export const adminUsersListRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  const { pool } = deps;
  const { users } = deps.auth;

  const listUsers = (q: UsersListRequest) => {
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

  route(
    'get',
    '/user/all',
    { kind: 'superadmin' },
    {
      summary: 'List users',
      request: { query: UsersQuery },
      responses: { 200: { description: 'Paginated users', schema: Paginated('PaginatedUsers', UserRecord) } },
    },
    async (req, res) => {
      res.json(await listUsers(parseNestedQuery(UsersQuery, req)));
    },
  );
  route(
    'post',
    '/user/all',
    { kind: 'superadmin' },
    {
      summary: 'List users (filter in the body)',
      request: { body: UsersBody },
      responses: { 201: { description: 'Paginated users', schema: Paginated('PaginatedUsersBody', UserRecord) } },
    },
    async (req, res) => {
      res.status(201).json(await listUsers(parseBody(UsersBody, req)));
    },
  );

  // The full list is SuperAdmin-only; support admins with user.view still need to find a user by name to open the record.
  route(
    'get',
    '/user/search',
    { kind: 'perm', permission: 'user.view' },
    {
      summary: 'Search users by part of the name or e-mail, or the exact id',
      addition: true,
      request: { query: UserSearchQuery },
      responses: { 200: { description: 'Matching users, newest first', schema: Paginated('PaginatedUserSearch', UserSearchHit) } },
    },
    async (req, res) => {
      const q = parseQuery(UserSearchQuery, req);
      const p = new SqlParams();
      const like = p.add(`%${escapeLike(q.search)}%`);
      const byId = /^\d{1,15}$/.test(q.search) ? ` OR u.id = ${p.add(q.search)}::bigint` : '';
      res.json(
        await listPage<AnyRow, z.output<typeof UserSearchHit>>(
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
        ),
      );
    },
  );

  route(
    'get',
    '/user/get-all-roles-with-users',
    { kind: 'superadmin' },
    {
      summary: 'Roles with their users',
      responses: { 200: { description: 'Roles with users', schema: UntypedList } },
    },
    async (_req, res) => {
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
      // Every user holds `User`: that role answers its count only.
      res.json(rows.map((r) => ({ role: r.role, usersCount: r.count, users: r.users.map((u) => ({ ...u, id: Number(u.id) })) })));
    },
  );

  route(
    'get',
    '/user/get-admins-with-roles',
    { kind: 'superadmin' },
    {
      summary: 'Admins with their roles',
      responses: { 200: { description: 'Admins with roles', schema: UntypedList } },
    },
    async (_req, res) => {
      const { rows } = await pool.query<AnyRow>(
        `SELECT id, username, email, roles, permissions, is_banned FROM users WHERE roles && ARRAY['Admin', 'SuperAdmin']::text[] ORDER BY id`,
      );
      res.json(
        rows.map((r) => ({
          id: Number(r.id),
          username: r.username,
          email: r.email,
          isBanned: r.is_banned,
          roles: (r.roles as string[]).map((role) => ({ role, userId: Number(r.id) })),
          permissions: r.permissions,
        })),
      );
    },
  );

  route(
    'post',
    '/user/admin-user',
    { kind: 'superadmin' },
    {
      summary: 'Create an admin user',
      request: { body: CreateAdminUserBody },
      responses: { 201: { description: 'The user', schema: UserRecord } },
    },
    async (req, res) => {
      const body = parseBody(CreateAdminUserBody, req);
      const adminUserId = authOf(req).userId;
      let user = orThrowUser(
        await users.register({
          email: body.email ?? null,
          username: body.username,
          passwordHash: await hashPassword(body.password),
          country: null,
          referrerCode: null,
          marketingOptIn: false,
          provider: 'password',
          roles: ['User', 'Admin'],
          adminUserId,
          registration: { ip: null, userAgent: null, country: null, referrer: null },
        }),
      );
      for (const permission of new Set(body.permissions)) {
        user = orThrowUser(await users.execute(user.userId, { type: 'GrantPermission', data: { permission } }, adminUserId));
      }
      res.status(201).json(await fullUserOf(pool, user));
    },
  );

  return router;
};
