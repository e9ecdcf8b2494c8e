import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { ZodType } from 'zod';
import { guardedRoutes, type Access, type HttpMethod, type RouteDocs } from './access.js';
import { consistentRead } from './ledger-position.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { HttpError, zodToHttp } from './errors.js';
import { nestedQuery } from './filters.js';
import {
  AdminTipsQuery,
  BetsBody,
  BetsQuery,
  DepositsQuery,
  FullStatsParams,
  RakebackBody,
  StatsTransactionsQuery,
  TransactionsBody,
  WithdrawalsQuery,
} from './ledger-lists.schemas.js';
import { parseBody, parseParams, parseQuery, type z } from './validate.js';
import { AdminStats, Paginated, TransactionBucket, UntypedList, WithdrawalRecord } from './openapi.schemas.js';
import type { Permission } from '../domain/user/permissions.js';
import type { Listed } from '../read-models/list-page.js';
import { listAdminTips } from '../read-models/admin-tips/admin-tips.queries.js';
import { listBets } from '../read-models/bets/bets.queries.js';
import { listDeposits } from '../read-models/deposits/deposits.queries.js';
import { statsTransactions } from '../read-models/deposits/transaction-stats.queries.js';
import { rakebackRecords } from '../read-models/rakeback/rakeback.queries.js';
import { listTransactions } from '../read-models/transactions/transactions.queries.js';
import { fullStats } from '../read-models/user-stats-usd/user-stats-usd.queries.js';
import { listWithdrawals } from '../read-models/withdrawals/withdrawals.queries.js';

/** Where a route's input is read from, documented under the same key. */
type Input<T> = Readonly<{ request: NonNullable<RouteDocs['request']>; parse: (req: Request) => T }>;

const PARSERS = { query: parseQuery, body: parseBody, params: parseParams } as const;

const input = <S extends z.ZodObject>(at: keyof typeof PARSERS, schema: S): Input<z.output<S>> => ({
  request: { [at]: schema },
  parse: (req) => PARSERS[at](schema, req),
});

/** Query strings with nested keys (`where[status]=SETTLED`) or a JSON `where`, validated like parseQuery. */
const nested = <S extends z.ZodObject>(schema: S): Input<z.output<S>> => ({
  request: { query: schema },
  parse: (req) => {
    const result = schema.safeParse(nestedQuery(req.originalUrl));
    if (!result.success) throw zodToHttp(result.error, 'query');
    return result.data;
  },
});

/** How the answer is documented and sent. */
type Output<R> = Readonly<{ responses: RouteDocs['responses']; send: (res: Response, answer: R) => void }>;

/** The page as the body, where its total came from in `x-total-source`; `declared201`: the spec lists a 201 never sent. */
const page = (description: string, schema: ZodType, declared201 = false): Output<Listed<unknown>> => ({
  responses: declared201
    ? { 200: { description, schema }, 201: { description: 'Declared by the spec; not sent' } }
    : { 200: { description, schema } },
  send: (res, { page, totalSource }) => {
    res.setHeader('x-total-source', totalSource);
    res.json(page);
  },
});

const json = (status: 200 | 201, description: string, schema: ZodType): Output<unknown> => ({
  responses: { [status]: { description, schema } },
  send: (res, answer) => void res.status(status).json(answer),
});

type Pool = BackOfficeDeps['pool'];
type Route = ReturnType<typeof guardedRoutes>;

/** A read route answered by a read-model query; `reads`: the read models a consistent read waits for (none: at once). */
const read =
  <T, R>(
    method: HttpMethod,
    path: string,
    rule: Access,
    reads: readonly string[],
    input: Input<T>,
    answer: (pool: Pool, input: T) => Promise<R>,
    docs: Readonly<{ summary: string; output: Output<R> }>,
  ) =>
  (route: Route, deps: BackOfficeDeps): void => {
    const handler: RequestHandler = async (req, res) => docs.output.send(res, await answer(deps.pool, input.parse(req)));
    const documented: RouteDocs = { summary: docs.summary, request: input.request, responses: docs.output.responses };
    if (reads.length === 0) return route(method, path, rule, documented, handler);
    route(method, path, rule, { ...documented, readModels: reads }, consistentRead(deps.reads, reads), handler);
  };

const perm = (permission: Permission): Access => ({ kind: 'perm', permission });
const SUPERADMIN: Access = { kind: 'superadmin' };

const PaginatedBets = Paginated('PaginatedBets');

const fullStatsOrNotFound = async (pool: Pool, { id }: z.output<typeof FullStatsParams>) => {
  const stats = await fullStats(pool, id);
  if (!stats) throw new HttpError(404, 'USER_NOT_FOUND', `User ${id} not found`);
  return stats;
};

const rakebackOf = (pool: Pool, { where }: z.output<typeof RakebackBody>) => rakebackRecords(pool, where.userId, where.currencyId);

/** The routes in registration order, which the OpenAPI document keeps. */
const READ_ROUTES = [
  read('get', '/admin-tips', perm('admin-tips.view'), ['admin-tips', 'users'], input('query', AdminTipsQuery), listAdminTips, {
    summary: 'List admin tips',
    output: page('Paginated admin tips', Paginated('PaginatedAdminTips')),
  }),
  read('get', '/withdraw', perm('withdrawals.view'), ['withdrawals', 'users'], input('query', WithdrawalsQuery), listWithdrawals, {
    summary: 'List withdrawals',
    output: page('Paginated withdrawals', Paginated('PaginatedWithdrawals', WithdrawalRecord)),
  }),
  read('get', '/deposit', perm('deposits.view'), ['deposits', 'users'], input('query', DepositsQuery), listDeposits, {
    summary: 'List deposits',
    output: page('Paginated deposits', Paginated('PaginatedDeposits')),
  }),
  read('get', '/bets', perm('user.bets.view'), ['bets', 'users'], nested(BetsQuery), listBets, {
    summary: 'List bets',
    output: page('Paginated bets', PaginatedBets),
  }),
  read('post', '/bets', perm('user.bets.view'), ['bets', 'users'], input('body', BetsBody), listBets, {
    summary: 'List bets (filter in the body)',
    output: page('Paginated bets', PaginatedBets, true),
  }),
  read('post', '/accounting/transactions', SUPERADMIN, ['transactions'], input('body', TransactionsBody), listTransactions, {
    summary: 'List accounting transactions',
    output: page('Paginated transactions', Paginated('PaginatedTransactions'), true),
  }),
  read(
    'get',
    '/user/stats/transactions',
    perm('transaction.view'),
    ['deposits', 'withdrawals'],
    input('query', StatsTransactionsQuery),
    statsTransactions,
    {
      summary: 'Deposit or withdrawal totals per period',
      output: json(200, 'Paginated totals per period', Paginated('PaginatedTransactionBuckets', TransactionBucket)),
    },
  ),
  read('get', '/user/:id/full/stats', SUPERADMIN, [], input('params', FullStatsParams), fullStatsOrNotFound, {
    summary: "A user's admin stats",
    output: json(200, 'Admin stats', AdminStats),
  }),
  read('post', '/rakeback/find-many', perm('rakebacks.view'), ['rakeback'], input('body', RakebackBody), rakebackOf, {
    summary: "A user's rakeback records",
    output: json(201, 'Array of rakeback records', UntypedList),
  }),
];

/** Back-office read side of the ledger: admin tips, withdrawals, deposits, bets, accounting log and USD stats. */
export const ledgerListsRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  for (const register of READ_ROUTES) register(route, deps);
  return router;
};
