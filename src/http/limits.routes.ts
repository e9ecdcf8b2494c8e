import { LIMITS_ERRORS } from '../commands/errors.js';
import { errorCodesOf, mergeErrors } from './access.js';
import { Router, type Request } from 'express';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import { authOf } from './auth.adapter.js';
import { betLimitView, createLimits } from '../commands/limits.js';
import type { LimitsError } from '../domain/limits/limits.errors.js';
import { guardedRoutes } from './access.js';
import { existingUser, type BackOfficeDeps } from './back-office.deps.js';
import { BetLimitBody, ExclusionBody, LiftExclusionBody, LimitsUserParams } from './limits.schemas.js';
import { parseBody, parseParams } from './validate.js';
import { BetLimitOrNothing, BetLimitRecord, SelfExclusion, SelfExclusionOrNothing } from './openapi.schemas.js';
import { limitsError } from '../commands/errors.js';

const orThrowLimits = <T>(result: Either<LimitsError, T>): T => {
  if (isLeft(result)) throw limitsError(result.left);
  return result.right;
};

/** Self-exclusion and bet limits: each change an event naming the admin; the ledger enforces them on bets. */
export const limitsRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(
    router,
    deps.auth.authenticator,
    deps.registry,
    '',
    mergeErrors(errorCodesOf(LIMITS_ERRORS), { 404: ['USER_NOT_FOUND'] }),
  );
  const limits = createLimits({ store: deps.store, pool: deps.pool });
  const admin = (req: Request) => authOf(req).userId;
  const known = (userId: number): Promise<number> => existingUser(deps, userId);

  route(
    'post',
    '/user-limits/user-exclusion',
    { kind: 'perm', permission: 'user-limit.edit' },
    {
      summary: 'Self-exclude a user',
      request: { body: ExclusionBody },
      responses: { 201: { description: 'The self-exclusion', schema: SelfExclusion } },
    },
    async (req, res) => {
      const { excludeUntil, userId } = parseBody(ExclusionBody, req);
      res.status(201).json(orThrowLimits(await limits.setExclusion(await known(userId), new Date(excludeUntil), admin(req))));
    },
  );
  route(
    'delete',
    '/user-limits/user-exclusion',
    { kind: 'perm', permission: 'user-limit.delete' },
    {
      summary: 'Lift a self-exclusion',
      request: { body: LiftExclusionBody },
      responses: { 200: { description: 'The lifted self-exclusion', schema: SelfExclusion } },
    },
    async (req, res) => {
      const { userId } = parseBody(LiftExclusionBody, req);
      res.json(orThrowLimits(await limits.liftExclusion(await known(userId), admin(req))));
    },
  );
  route(
    'get',
    '/user-limits/user-exclusion/:id',
    { kind: 'perm', permission: 'user-limit.view' },
    {
      summary: "A user's active self-exclusion",
      request: { params: LimitsUserParams },
      responses: { 200: { description: 'The active self-exclusion, or {} when none', schema: SelfExclusionOrNothing } },
    },
    async (req, res) => {
      const { id } = parseParams(LimitsUserParams, req);
      res.json((await limits.activeExclusion(await known(id))) ?? {});
    },
  );
  route(
    'post',
    '/user-limits/gambling-limits',
    { kind: 'perm', permission: 'user-limit.edit' },
    {
      summary: "Set a user's bet limit",
      request: { body: BetLimitBody },
      responses: { 201: { description: 'The gambling limits', schema: BetLimitRecord } },
    },
    async (req, res) => {
      const { betLimit, userId } = parseBody(BetLimitBody, req);
      res.status(201).json(orThrowLimits(await limits.setBetLimit(await known(userId), betLimit, admin(req))));
    },
  );
  route(
    'get',
    '/user-limits/gambling-limits/:id',
    { kind: 'perm', permission: 'user-limit.view' },
    {
      summary: "A user's gambling limits",
      request: { params: LimitsUserParams },
      responses: { 200: { description: 'The gambling limits, or {} when none', schema: BetLimitOrNothing } },
    },
    async (req, res) => {
      const { id } = parseParams(LimitsUserParams, req);
      const state = await limits.load(await known(id));
      res.json(state.betLimit ? betLimitView(id, state.betLimit) : {});
    },
  );
  return router;
};
