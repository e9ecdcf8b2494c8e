import { Router, type Request } from 'express';
import { authOf } from './auth.adapter.js';
import { hashPassword } from '../auth/passwords.js';
import { errorCodesOf, guardedRoutes } from './access.js';
import { CreateAdminUserBody, UserSearchHit, UserSearchQuery, UsersBody, UsersQuery } from './admin-users-list.schemas.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { zodToHttp } from './http-errors.js';
import { nestedQuery } from './filters.js';
import { parseBody, parseQuery, type z } from './validate.js';
import { Paginated, UntypedList, UserRecord } from './openapi.schemas.js';
import { fullUserOf } from '../read-models/users/user-record.js';
import { adminsWithRoles, listUsers, rolesWithUsers, searchUsers } from '../read-models/users/users.queries.js';
import { orThrowUser, USER_ERRORS } from '../commands/errors.js';

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
      res.json((await listUsers(pool, parseNestedQuery(UsersQuery, req))).page);
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
      res.status(201).json((await listUsers(pool, parseBody(UsersBody, req))).page);
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
      res.json((await searchUsers(pool, parseQuery(UserSearchQuery, req))).page);
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
      res.json(await rolesWithUsers(pool));
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
      res.json(await adminsWithRoles(pool));
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
      errors: errorCodesOf(USER_ERRORS),
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
