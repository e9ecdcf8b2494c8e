import { Router, type Request } from 'express';
import { authOf } from './auth.adapter.js';
import { mayManageCredentialsOf } from '../domain/user/permissions.js';
import { authError } from './http-errors.js';
import { createApiKeys } from '../commands/api-keys.js';
import { guardedRoutes } from './access.js';
import { ApiKeyBody, ApiKeyUserParams } from './api-keys.schemas.js';
import { existingUser, type BackOfficeDeps } from './back-office.deps.js';
import { parseBody, parseParams } from './validate.js';
import { ApiKeyOrNothing, IssuedApiKey } from './openapi.schemas.js';

export const CREDENTIALS_RULE =
  'Least privilege: only a SuperAdmin may manage the API key of a SuperAdmin or of an account holding ' +
  'permissions the caller lacks (403 FORBIDDEN)';

/** API keys of the public API: the secret is in the create answer only; look-up shows the active key's prefix; `{}` when none. */
export const apiKeysRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry, '', { 404: ['USER_NOT_FOUND'] });
  const keys = createApiKeys({ pool: deps.pool, store: deps.store });
  const admin = (req: Request) => authOf(req).userId;
  /** The target, when it exists and the caller may manage its credentials (least privilege between admins). */
  const known = async (req: Request, userId: number): Promise<number> => {
    await existingUser(deps, userId);
    const target = await deps.auth.users.access(userId);
    if (!target || !mayManageCredentialsOf(authOf(req), target)) throw authError('forbidden', CREDENTIALS_RULE);
    return userId;
  };

  route(
    'post',
    '/api-keys',
    { kind: 'perm', permission: 'api-key.edit' },
    {
      summary: 'Issue an API key (the secret is shown once)',
      description: CREDENTIALS_RULE,
      request: { body: ApiKeyBody },
      responses: { 201: { description: 'The API key with its secret', schema: IssuedApiKey } },
    },
    async (req, res) => {
      const { userId } = parseBody(ApiKeyBody, req);
      res.status(201).json(await keys.issue(await known(req, userId), admin(req)));
    },
  );
  route(
    'get',
    '/api-keys/:userId',
    { kind: 'perm', permission: 'api-key.view' },
    {
      summary: "A user's API key (without the secret)",
      description: CREDENTIALS_RULE,
      request: { params: ApiKeyUserParams },
      responses: { 200: { description: 'The active API key, or {} when none', schema: ApiKeyOrNothing } },
    },
    async (req, res) => {
      const { userId } = parseParams(ApiKeyUserParams, req);
      res.json((await keys.active(await known(req, userId))) ?? {});
    },
  );
  route(
    'delete',
    '/api-keys/:userId',
    { kind: 'perm', permission: 'api-key.edit' },
    {
      summary: "Disable a user's API key",
      description: CREDENTIALS_RULE,
      request: { params: ApiKeyUserParams },
      responses: { 204: { description: 'Disabled' } },
    },
    async (req, res) => {
      const { userId } = parseParams(ApiKeyUserParams, req);
      await keys.revoke(await known(req, userId), admin(req));
      res.status(204).end();
    },
  );
  return router;
};
