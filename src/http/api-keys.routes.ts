import { Router, type Request } from 'express';
import { authOf } from './auth.adapter.js';
import { createApiKeys } from '../commands/api-keys.js';
import { guardedRoutes } from './access.js';
import { ApiKeyBody, ApiKeyUserParams } from './api-keys.schemas.js';
import { existingUser, type BackOfficeDeps } from './back-office.deps.js';
import { parseBody, parseParams } from './validate.js';
import { ApiKeyOrNothing, IssuedApiKey } from './openapi.schemas.js';

/** API keys of the public API: the secret is in the create answer only; look-up shows the active key's prefix; `{}` when none. */
export const apiKeysRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  const keys = createApiKeys({ pool: deps.pool, store: deps.store });
  const admin = (req: Request) => authOf(req).userId;
  const known = (userId: number): Promise<number> => existingUser(deps, userId);

  route(
    'post',
    '/api-keys',
    { kind: 'perm', permission: 'api-key.edit' },
    {
      summary: 'Issue an API key (the secret is shown once)',
      request: { body: ApiKeyBody },
      responses: { 201: { description: 'The API key with its secret', schema: IssuedApiKey } },
    },
    async (req, res) => {
      const { userId } = parseBody(ApiKeyBody, req);
      res.status(201).json(await keys.issue(await known(userId), admin(req)));
    },
  );
  route(
    'get',
    '/api-keys/:userId',
    { kind: 'perm', permission: 'api-key.view' },
    {
      summary: "A user's API key (without the secret)",
      request: { params: ApiKeyUserParams },
      responses: { 200: { description: 'The active API key, or {} when none', schema: ApiKeyOrNothing } },
    },
    async (req, res) => {
      const { userId } = parseParams(ApiKeyUserParams, req);
      res.json((await keys.active(await known(userId))) ?? {});
    },
  );
  route(
    'delete',
    '/api-keys/:userId',
    { kind: 'perm', permission: 'api-key.edit' },
    {
      summary: "Disable a user's API key",
      request: { params: ApiKeyUserParams },
      responses: { 204: { description: 'Disabled' } },
    },
    async (req, res) => {
      const { userId } = parseParams(ApiKeyUserParams, req);
      await keys.revoke(await known(userId), admin(req));
      res.status(204).end();
    },
  );
  return router;
};
