import { Router } from 'express';
import { isLeft } from 'fp-ts/lib/Either.js';
import { authOf } from './auth.adapter.js';
import type { LedgerError } from '../commands/ledger.types.js';
import type { LeaderboardError } from '../leaderboards/leaderboard.errors.js';
import { createPrizes } from '../leaderboards/leaderboard.prizes.js';
import { createLeaderboardQueries } from '../leaderboards/leaderboards.queries.js';
import type { RecordedAction } from '../shared/admin-actions.js';
import { guardedRoutes } from './access.js';
import type { AdminOperation } from './admin-operation.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { leaderboardErrorToHttp, ledgerErrorToHttp, LEADERBOARD_ERROR_HTTP, type HttpError } from './errors.js';
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

const refusal = (e: LeaderboardError | LedgerError): HttpError =>
  e._tag in LEADERBOARD_ERROR_HTTP ? leaderboardErrorToHttp(e as LeaderboardError) : ledgerErrorToHttp(e as LedgerError);
const notFound = (e: LeaderboardError): never => {
  throw leaderboardErrorToHttp(e);
};

/**
 * POST /leaderboards/give-prize (the key from its Idempotency-Key header) and the LeaderboardGivePrize event
 * (the key as `idempotencyKey`). Keys are scoped to the acting admin, so a retry over either surface pays once.
 */
export const GivePrizeCommand = GivePrizeBody.safeExtend({ idempotencyKey: IdempotencyHeaders.shape['idempotency-key'] });
export const givePrize = {
  permission: 'leaderboard.give-prize',
  schema: GivePrizeCommand,
  run: async ({ pool, ledger }, { idempotencyKey, ...body }, adminUserId) => {
    const paid = await createPrizes({ pool, ledger }).give({
      ...body,
      adminUserId,
      idempotencyKey: idempotencyKey === undefined ? undefined : `${adminUserId}:${idempotencyKey}`,
    });
    if (isLeft(paid)) throw refusal(paid.left);
    const user = await createLeaderboardQueries(pool).user(body.leaderboardId, body.userId);
    return { ...user, payment: paid.right };
  },
} satisfies AdminOperation<Pick<BackOfficeDeps, 'pool' | 'ledger'>, typeof GivePrizeCommand, unknown>;

/** Leaderboards, their schedules and give-prize (decisions.md: leaderboard.view / .edit / .give-prize). */
export const leaderboardsRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
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
      // The change and its admin audit record (src/audit/admin-actions.ts) in one statement: both or neither.
      const { rowCount } = await deps.pool.query(
        `WITH before AS (SELECT id, enabled, name, description, prizes FROM leaderboard_schedules WHERE id = $1),
       after AS (UPDATE leaderboard_schedules SET enabled = $2, name = $3, description = $4, prizes = $5, updated_at = now() WHERE id = $1
         RETURNING id, enabled, name, description, prizes)
       INSERT INTO admin_audit_records (admin_user_id, action, details)
       SELECT $6, $7, jsonb_build_object('before', to_jsonb(before), 'after', to_jsonb(after)) FROM after JOIN before USING (id)`,
        [
          id,
          body.enabled,
          body.name,
          body.description,
          JSON.stringify([...body.prizes].sort((a, b) => a.position - b.position)),
          authOf(req).userId,
          'leaderboard.update-schedule' satisfies RecordedAction,
        ],
      );
      if (!rowCount) notFound({ _tag: 'ScheduleNotFound', scheduleId: id });
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
