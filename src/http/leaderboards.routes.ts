import { LEADERBOARD_ERRORS, LEDGER_ERRORS } from '../commands/errors.js';
import { errorCodesOf, mergeErrors } from './access.js';
import { Router } from 'express';
import { authOf } from './auth.adapter.js';
import { givePrize } from '../commands/admin-operations/give-prize.js';
import { updateLeaderboardSchedule } from '../commands/admin-operations/leaderboard-schedule.js';
import type { LeaderboardError } from '../leaderboards/leaderboard.errors.js';
import { createLeaderboardQueries } from '../leaderboards/leaderboards.queries.js';
import { guardedRoutes } from './access.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import {
  GivePrizeBody,
  IdempotencyHeaders,
  LeaderboardParams,
  LeaderboardsQuery,
  LeaderboardUserParams,
  LeaderboardUsersQuery,
  ScheduleBody,
  ScheduleParams,
} from './leaderboards.schemas.js';
import { parseBody, parseHeaders, parseParams, parseQuery } from './validate.js';
import { Paginated, UntypedList, UntypedObject } from './openapi.schemas.js';
import { leaderboardError } from '../commands/errors.js';

const notFound = (e: LeaderboardError): never => {
  throw leaderboardError(e);
};

/** Leaderboards, their schedules and give-prize (decisions.md: leaderboard.view / .edit / .give-prize). */
export const leaderboardsRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(
    router,
    deps.auth.authenticator,
    deps.registry,
    '',
    mergeErrors(errorCodesOf(LEDGER_ERRORS), errorCodesOf(LEADERBOARD_ERRORS)),
  );
  const queries = createLeaderboardQueries(deps.pool);
  const view = { kind: 'perm', permission: 'leaderboard.view' } as const;

  // Fixed paths first: /leaderboards/schedule and /leaderboards/give-prize are not leaderboard ids.
  route(
    'get',
    '/leaderboards/schedule',
    view,
    {
      summary: 'List leaderboard schedules',
      responses: { 200: { description: 'Array of leaderboard schedules', schema: UntypedList } },
    },
    async (_req, res) => {
      res.json(await queries.schedules());
    },
  );
  route(
    'get',
    '/leaderboards/schedule/:id',
    view,
    {
      summary: 'A leaderboard schedule',
      request: { params: ScheduleParams },
      responses: { 200: { description: 'The schedule', schema: UntypedObject } },
    },
    async (req, res) => {
      const { id } = parseParams(ScheduleParams, req);
      res.json((await queries.schedule(id)) ?? notFound({ _tag: 'ScheduleNotFound', scheduleId: id }));
    },
  );
  route(
    'post',
    '/leaderboards/schedule/:id',
    { kind: 'perm', permission: 'leaderboard.edit' },
    {
      summary: 'Set a leaderboard schedule',
      request: { params: ScheduleParams, body: ScheduleBody },
      responses: { 201: { description: 'The schedule', schema: UntypedObject } },
    },
    async (req, res) => {
      const { id } = parseParams(ScheduleParams, req);
      const body = parseBody(ScheduleBody, req);
      const updated = await updateLeaderboardSchedule(deps.pool, id, body, authOf(req).userId);
      if (!updated) notFound({ _tag: 'ScheduleNotFound', scheduleId: id });
      res.status(201).json(await queries.schedule(id));
    },
  );

  route(
    'post',
    '/leaderboards/give-prize',
    { kind: 'perm', permission: givePrize.permission },
    {
      summary: 'Pay a leaderboard prize',
      request: { body: GivePrizeBody, headers: IdempotencyHeaders },
      responses: { 201: { description: 'The leaderboard user with the payment', schema: UntypedObject } },
    },
    async (req, res) => {
      const body = parseBody(GivePrizeBody, req);
      const idempotencyKey = parseHeaders(IdempotencyHeaders, req)['idempotency-key'];
      res.status(201).json(await givePrize.run(deps, { ...body, idempotencyKey }, authOf(req).userId));
    },
  );

  route(
    'get',
    '/leaderboards',
    view,
    {
      summary: 'List leaderboards',
      request: { query: LeaderboardsQuery },
      responses: { 200: { description: 'Paginated leaderboards', schema: Paginated('PaginatedLeaderboards') } },
    },
    async (req, res) => {
      res.json(await queries.list(parseQuery(LeaderboardsQuery, req)));
    },
  );
  route(
    'get',
    '/leaderboards/:leaderboardId',
    view,
    {
      summary: 'A leaderboard',
      request: { params: LeaderboardParams },
      responses: { 200: { description: 'The leaderboard', schema: UntypedObject } },
    },
    async (req, res) => {
      const { leaderboardId } = parseParams(LeaderboardParams, req);
      res.json((await queries.one(leaderboardId)) ?? notFound({ _tag: 'LeaderboardNotFound', leaderboardId }));
    },
  );
  route(
    'get',
    '/leaderboards/:leaderboardId/users',
    view,
    {
      summary: "A leaderboard's users",
      request: { params: LeaderboardParams, query: LeaderboardUsersQuery },
      responses: { 200: { description: 'Paginated leaderboard users', schema: Paginated('PaginatedLeaderboardUsers') } },
    },
    async (req, res) => {
      const { leaderboardId } = parseParams(LeaderboardParams, req);
      const query = parseQuery(LeaderboardUsersQuery, req);
      if (!(await queries.one(leaderboardId))) notFound({ _tag: 'LeaderboardNotFound', leaderboardId });
      res.json(await queries.users(leaderboardId, query));
    },
  );
  route(
    'get',
    '/leaderboards/:leaderboardId/users/:userId',
    view,
    {
      summary: 'A leaderboard user',
      request: { params: LeaderboardUserParams },
      responses: { 200: { description: 'The leaderboard user', schema: UntypedObject } },
    },
    async (req, res) => {
      const { leaderboardId, userId } = parseParams(LeaderboardUserParams, req);
      res.json((await queries.user(leaderboardId, userId)) ?? notFound({ _tag: 'LeaderboardUserNotFound', leaderboardId, userId }));
    },
  );

  return router;
};
