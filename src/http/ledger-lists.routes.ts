import { Router } from 'express';
import { guardedRoutes } from './access.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { HttpError } from './http-errors.js';
import { FullStatsParams, RakebackBody, StatsTransactionsQuery, TransactionsBody } from './ledger-lists.schemas.js';
import type { z } from './validate.js';
import { AdminStats, Paginated, TransactionBucket, UntypedList } from './openapi.schemas.js';
import { input, json, page, perm, read, SUPERADMIN, type Pool } from './read-route.js';
import { adminTipsListRoute } from '../wallet/admin-tips/admin-tips.routes.js';
import { betsListRoutes } from '../wallet/bets/bets.routes.js';
import { depositsListRoute } from '../wallet/deposits/deposits.routes.js';
import { statsTransactions } from '../wallet/deposits/transaction-stats.queries.js';
import { rakebackRecords } from '../read-models/rakeback/rakeback.queries.js';
import { listTransactions } from '../read-models/transactions/transactions.queries.js';
import { fullStats } from '../read-models/user-stats-usd/user-stats-usd.queries.js';
import { withdrawalsListRoute } from '../wallet/withdrawals/withdrawals.routes.js';

const fullStatsOrNotFound = async (pool: Pool, { id }: z.output<typeof FullStatsParams>) => {
  const stats = await fullStats(pool, id);
  if (!stats) throw new HttpError(404, 'USER_NOT_FOUND', `User ${id} not found`);
  return stats;
};

const rakebackOf = (pool: Pool, { where }: z.output<typeof RakebackBody>) => rakebackRecords(pool, where.userId, where.currencyId);

/** The routes in registration order, which the OpenAPI document keeps. */
const READ_ROUTES = [
  adminTipsListRoute,
  withdrawalsListRoute,
  depositsListRoute,
  ...betsListRoutes,
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
