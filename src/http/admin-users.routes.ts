import { Router, type Request } from 'express';
import type pg from 'pg';
import type { Authenticator } from '../auth/authenticator.js';
import { authOf } from './auth.adapter.js';
import type { Users } from '../commands/users.js';
import { recordSessionsEnded } from '../commands/api-keys.js';
import { revokeAllAccess } from '../auth/sessions.js';
import type { EventStore } from '../infra/event-store/event-store.port.js';
import { holdsPermission, mayManageCredentialsOf, PERMISSIONS, type Permission } from '../domain/user/permissions.js';
import { DEFAULT_AVATAR_URL } from '../domain/user/vip.js';
import { fullUserOf } from '../read-models/users/user-record.js';
import { registrationInfo } from '../read-models/users/users.queries.js';
import { errorCodesOf, guardedRoutes, type AccessRegistry } from './access.js';
import { consistentRead, type ConsistentReads } from './ledger-position.js';
import { banUser, guardSuperAdminTarget } from '../commands/admin-operations/ban-user.js';
import {
  BanBody,
  KycBody,
  PermissionParams,
  PermissionsBody,
  RegistrationInfoParams,
  RolesBody,
  SingleRoleBody,
  UpdateUserBody,
  UserIdParams,
} from './admin-users.schemas.js';
import { authError, HttpError } from './http-errors.js';
import { parseBody, parseParams } from './validate.js';
import { RegistrationInfo, StringList, Text, UserPermissions, UserRecord } from './openapi.schemas.js';
import { z } from './validate.js';

const SessionsEndedResponse = z.object({ sessions: z.number().int(), apiKeyIds: z.array(z.string()) }).openapi('SessionsEnded');
import { orThrowUser, USER_ERRORS } from '../commands/errors.js';

export type AdminUsersDeps = Readonly<{
  users: Users;
  pool: pg.Pool;
  store: EventStore;
  authenticator: Authenticator;
  registry: AccessRegistry;
  reads?: ConsistentReads;
}>;

/** The record's balances and USD stats come from these read models (the rest is live user state). */
const USER_READS = ['users', 'wallet-balances', 'user-stats-usd'];

/** The rule as the OpenAPI descriptions state it. */
export const SUPERADMIN_TARGET_RULE = 'Least privilege: an Admin cannot do this to a SuperAdmin (403 FORBIDDEN); only a SuperAdmin can.';
const DELEGATION_RULE = 'Only a permission the caller holds can be granted or revoked (a SuperAdmin holds all).';

/** Back-office user administration: ban, roles, permissions, KYC level, registration info. Every change records the acting admin. */
export const adminUserRoutes = ({ users, pool, store, authenticator, registry, reads }: AdminUsersDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, authenticator, registry, '', errorCodesOf(USER_ERRORS));
  const admin = (req: Request) => authOf(req).userId;
  const view = (user: Parameters<typeof fullUserOf>[1]) => fullUserOf(pool, user);
  const mayChange = (req: Request, targetId: number) => guardSuperAdminTarget(users, admin(req), targetId);

  /** Only a SuperAdmin may hand out (or take away) a permission the caller does not hold. */
  const mayDelegate = (req: Request, permission: Permission) => {
    if (!holdsPermission(authOf(req), permission)) throw authError('forbidden', `Only a SuperAdmin may grant ${permission}`);
  };
  const byUsername = async (username: string): Promise<number> => {
    const id = await users.idByKey('username', username);
    if (id === undefined) throw new HttpError(404, 'USER_NOT_FOUND', `User ${username} not found`);
    return id;
  };

  route(
    'get',
    '/user/all-permissions',
    { kind: 'superadmin' },
    {
      summary: 'All permission names',
      responses: { 200: { description: 'Permission names', schema: StringList } },
    },
    (_req, res) => {
      res.json([...PERMISSIONS]);
    },
  );

  route(
    'put',
    '/user/add-single-role',
    { kind: 'superadmin' },
    {
      summary: 'Add a role by username',
      request: { body: SingleRoleBody },
      responses: { 200: { description: 'The user', schema: UserRecord } },
    },
    async (req, res) => {
      const { username, role } = parseBody(SingleRoleBody, req);
      res.json(await view(orThrowUser(await users.execute(await byUsername(username), { type: 'GrantRole', data: { role } }, admin(req)))));
    },
  );
  route(
    'put',
    '/user/revoke-single-role',
    { kind: 'superadmin' },
    {
      summary: 'Revoke a role by username',
      request: { body: SingleRoleBody },
      responses: { 200: { description: 'The user', schema: UserRecord } },
    },
    async (req, res) => {
      const { username, role } = parseBody(SingleRoleBody, req);
      res.json(
        await view(orThrowUser(await users.execute(await byUsername(username), { type: 'RevokeRole', data: { role } }, admin(req)))),
      );
    },
  );

  route(
    'get',
    '/user/:id',
    { kind: 'perm', permission: 'user.view' },
    {
      readModels: USER_READS,
      summary: 'A user',
      request: { params: UserIdParams },
      responses: { 200: { description: 'The user', schema: UserRecord } },
    },
    consistentRead(reads, USER_READS),
    async (req, res) => {
      const { id } = parseParams(UserIdParams, req);
      const state = await users.load(id);
      if (state.status !== 'registered') throw new HttpError(404, 'USER_NOT_FOUND', `User ${id} not found`);
      res.json(await view(state));
    },
  );
  route(
    'patch',
    '/user/:id',
    { kind: 'perm', permission: 'user.edit' },
    {
      summary: 'Update a user',
      description: SUPERADMIN_TARGET_RULE,
      request: { params: UserIdParams, body: UpdateUserBody },
      responses: { 200: { description: 'The user', schema: UserRecord } },
    },
    async (req, res) => {
      const { id } = parseParams(UserIdParams, req);
      const { username, ...changes } = parseBody(UpdateUserBody, req);
      await mayChange(req, id);
      // The username first: it is the change that can be refused (taken), and then nothing else is written.
      let user =
        username === undefined ? undefined : orThrowUser(await users.execute(id, { type: 'SetUsername', data: { username } }, admin(req)));
      if (Object.keys(changes).length > 0 || !user)
        user = orThrowUser(await users.execute(id, { type: 'UpdateProfile', data: { changes } }, admin(req)));
      res.json(await view(user));
    },
  );
  route(
    'patch',
    '/user/:id/avatar/reset',
    { kind: 'perm', permission: 'user.edit' },
    {
      summary: "Reset a user's avatar",
      description: SUPERADMIN_TARGET_RULE,
      request: { params: UserIdParams },
      responses: { 200: { description: 'The default avatar URL', schema: Text } },
    },
    async (req, res) => {
      const { id } = parseParams(UserIdParams, req);
      await mayChange(req, id);
      orThrowUser(await users.execute(id, { type: 'UpdateProfile', data: { changes: { avatar: DEFAULT_AVATAR_URL } } }, admin(req)));
      res.json(DEFAULT_AVATAR_URL);
    },
  );
  route(
    'patch',
    '/user/:id/ban',
    { kind: 'perm', permission: banUser.permission },
    {
      summary: 'Ban a user (ends their sessions)',
      description: SUPERADMIN_TARGET_RULE,
      request: { params: UserIdParams, body: BanBody },
      responses: { 200: { description: 'The user', schema: UserRecord } },
    },
    async (req, res) => {
      const { id } = parseParams(UserIdParams, req);
      const { banReason } = parseBody(BanBody, req);
      res.json(await banUser.run({ users, pool, endAccess: (...a) => revokeAllAccess(pool, ...a) }, { userId: id, banReason }, admin(req)));
    },
  );
  route(
    'put',
    '/user/:id/kyc',
    { kind: 'perm', permission: 'kyc.edit' },
    {
      summary: "Set a player's KYC level (audited)",
      description:
        'Records the level the KYC provider verified and whether a verification is pending; the identity documents stay ' +
        'with the provider. The AML hold of withdrawals reads this level. Nobody sets their own level (403 FORBIDDEN). ' +
        SUPERADMIN_TARGET_RULE,
      addition: true,
      request: { params: UserIdParams, body: KycBody },
      responses: { 200: { description: 'The user, its `kyc` object set', schema: UserRecord } },
    },
    async (req, res) => {
      const { id } = parseParams(UserIdParams, req);
      const body = parseBody(KycBody, req);
      await mayChange(req, id);
      const data = body.verificationPending === undefined ? { level: body.level } : body;
      res.json(await view(orThrowUser(await users.execute(id, { type: 'SetKycLevel', data }, admin(req)))));
    },
  );
  route(
    'post',
    '/user/:id/sign-out',
    { kind: 'perm', permission: banUser.permission },
    {
      summary: 'Sign a user out everywhere: end every session, refresh token and API key of theirs (audited)',
      description:
        'Least privilege: only a SuperAdmin may do this to a SuperAdmin or to an account holding permissions ' +
        'the caller lacks (403 FORBIDDEN).',
      addition: true,
      request: { params: UserIdParams },
      responses: { 200: { description: 'How many sessions and which API keys were ended', schema: SessionsEndedResponse } },
    },
    async (req, res) => {
      const { id } = parseParams(UserIdParams, req);
      const target = await users.access(id);
      if (!target) throw new HttpError(404, 'USER_NOT_FOUND', `User ${id} not found`);
      if (!mayManageCredentialsOf(authOf(req), target)) throw authError('forbidden', 'Only a SuperAdmin may sign this user out');
      const ended = await revokeAllAccess(pool, id, 'signed out by an admin', admin(req));
      await recordSessionsEnded(store, id, admin(req), ended);
      res.json(ended);
    },
  );
  route(
    'patch',
    '/user/:id/unban',
    { kind: 'superadmin' },
    {
      summary: 'Unban a user',
      request: { params: UserIdParams },
      responses: { 200: { description: 'The user', schema: UserRecord } },
    },
    async (req, res) => {
      const { id } = parseParams(UserIdParams, req);
      res.json(await view(orThrowUser(await users.execute(id, { type: 'UnbanUser', data: {} }, admin(req)))));
    },
  );
  route(
    'put',
    '/user/:id/roles',
    { kind: 'superadmin' },
    {
      summary: "Set a user's role",
      request: { params: UserIdParams, body: RolesBody },
      responses: { 200: { description: 'The user', schema: UserRecord } },
    },
    async (req, res) => {
      const { id } = parseParams(UserIdParams, req);
      const { roles } = parseBody(RolesBody, req);
      res.json(await view(orThrowUser(await users.execute(id, { type: 'GrantRole', data: { role: roles } }, admin(req)))));
    },
  );
  route(
    'put',
    '/user/:id/permissions',
    { kind: 'perm', permission: 'user.edit' },
    {
      summary: 'Grant a permission',
      description: `${SUPERADMIN_TARGET_RULE} ${DELEGATION_RULE}`,
      request: { params: UserIdParams, body: PermissionsBody },
      responses: { 200: { description: "The user's id and permissions after the grant", schema: UserPermissions } },
    },
    async (req, res) => {
      const { id } = parseParams(UserIdParams, req);
      const { permissions } = parseBody(PermissionsBody, req);
      mayDelegate(req, permissions);
      await mayChange(req, id);
      const user = orThrowUser(await users.execute(id, { type: 'GrantPermission', data: { permission: permissions } }, admin(req)));
      res.json({ userId: id, permissions: user.permissions });
    },
  );
  route(
    'delete',
    '/user/:id/permissions/:name',
    { kind: 'perm', permission: 'user.edit' },
    {
      summary: 'Revoke a permission',
      description: `${SUPERADMIN_TARGET_RULE} ${DELEGATION_RULE}`,
      request: { params: PermissionParams },
      addition: true,
      responses: { 200: { description: "The user's id and permissions after the revocation", schema: UserPermissions } },
    },
    async (req, res) => {
      const { id, name } = parseParams(PermissionParams, req);
      mayDelegate(req, name);
      await mayChange(req, id);
      const user = orThrowUser(await users.execute(id, { type: 'RevokePermission', data: { permission: name } }, admin(req)));
      res.json({ userId: id, permissions: user.permissions });
    },
  );

  route(
    'get',
    '/registration-info/:userId',
    { kind: 'superadmin' },
    {
      summary: "A user's registration info",
      request: { params: RegistrationInfoParams },
      responses: { 200: { description: 'Registration info', schema: RegistrationInfo } },
    },
    async (req, res) => {
      const { userId } = parseParams(RegistrationInfoParams, req);
      const info = await registrationInfo(pool, userId);
      if (!info) throw new HttpError(404, 'USER_NOT_FOUND', `No registration info for user ${userId}`);
      res.json(info);
    },
  );

  return router;
};
