import { Router, type Request } from 'express';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import type { AuthKit } from '../auth/auth-kit.js';
import type { Limits } from '../commands/limits.js';
import { limitsError, LIMITS_ERRORS } from '../commands/errors.js';
import type { LimitsError } from '../domain/limits/limits.errors.js';
import { errorCodesOf, guardedRoutes, mergeErrors } from './access.js';
import { authOf, requireAuth } from './auth.adapter.js';
import { existingUser, type BackOfficeDeps } from './back-office.deps.js';
import { GamblingLimitBody, GamblingLimits, OwnGamblingLimitBody } from './gambling-limits.schemas.js';
import { LimitsUserParams } from './limits.schemas.js';
import { documentedRoutes } from './openapi.js';
import { parseBody, parseParams } from './validate.js';

const orThrow = <T>(result: Either<LimitsError, T>): T => {
  if (isLeft(result)) throw limitsError(result.left);
  return result.right;
};
const RULE =
  'A lower limit, or a first one, applies at once; a higher one or a removal (limit null) applies 24 hours later and is ' +
  'shown as pending until then (docs/compliance.md).';

/** The player's own deposit and loss limits (public API): set by the signed-in user, never by an API key's owner alone. */
export const ownGamblingLimitsRoutes = (kit: AuthKit, limits: Limits): Router => {
  const router = Router();
  const route = documentedRoutes(router);
  const auth = requireAuth(kit.authenticator, 'public');
  route(
    'get',
    '/user/limits',
    { kind: 'auth' },
    {
      summary: 'My deposit and loss limits',
      addition: true,
      responses: { 200: { description: 'Each limit in force and pending', schema: GamblingLimits } },
    },
    auth,
    async (req, res) => {
      res.json(await limits.gamblingLimits(authOf(req).userId));
    },
  );
  route(
    'put',
    '/user/limits',
    { kind: 'auth' },
    {
      summary: 'Set or remove one of my deposit or loss limits',
      description: RULE,
      addition: true,
      request: { body: OwnGamblingLimitBody },
      responses: { 200: { description: 'Every limit after the change', schema: GamblingLimits } },
    },
    auth,
    async (req, res) => {
      const { kind, window, limit } = parseBody(OwnGamblingLimitBody, req);
      res.json(orThrow(await limits.setGamblingLimit(authOf(req).userId, { kind, window, value: limit }, null)));
    },
  );
  return router;
};

/** A player's deposit and loss limits in the back office: each admin change an event naming the admin (audited). */
export const gamblingLimitsRoutes = (deps: BackOfficeDeps, limits: Limits): Router => {
  const router = Router();
  const route = guardedRoutes(
    router,
    deps.auth.authenticator,
    deps.registry,
    '',
    mergeErrors(errorCodesOf(LIMITS_ERRORS), { 404: ['USER_NOT_FOUND'] }),
  );
  const admin = (req: Request) => authOf(req).userId;
  route(
    'get',
    '/user-limits/deposit-loss-limits/:id',
    { kind: 'perm', permission: 'user-limit.view' },
    {
      summary: "A user's deposit and loss limits",
      addition: true,
      request: { params: LimitsUserParams },
      responses: { 200: { description: 'Each limit in force and pending', schema: GamblingLimits } },
    },
    async (req, res) => {
      const { id } = parseParams(LimitsUserParams, req);
      res.json(await limits.gamblingLimits(await existingUser(deps, id)));
    },
  );
  route(
    'post',
    '/user-limits/deposit-loss-limits',
    { kind: 'perm', permission: 'user-limit.edit' },
    {
      summary: "Set or remove a user's deposit or loss limit",
      description: RULE,
      addition: true,
      request: { body: GamblingLimitBody },
      responses: { 200: { description: 'Every limit after the change', schema: GamblingLimits } },
    },
    async (req, res) => {
      const { userId, kind, window, limit } = parseBody(GamblingLimitBody, req);
      res.json(orThrow(await limits.setGamblingLimit(await existingUser(deps, userId), { kind, window, value: limit }, admin(req))));
    },
  );
  return router;
};
