import { Router, type Request, type Response } from 'express';
import { guardedRoutes } from './access.js';
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
import type { Listed } from '../read-models/list-page.js';
import { listAdminTips } from '../read-models/admin-tips/admin-tips.queries.js';
import { listBets } from '../read-models/bets/bets.queries.js';
import { listDeposits } from '../read-models/deposits/deposits.queries.js';
import { statsTransactions } from '../read-models/deposits/transaction-stats.queries.js';
import { rakebackRecords } from '../read-models/rakeback/rakeback.queries.js';
import { listTransactions } from '../read-models/transactions/transactions.queries.js';
import { fullStats } from '../read-models/user-stats-usd/user-stats-usd.queries.js';
import { listWithdrawals } from '../read-models/withdrawals/withdrawals.queries.js';

const PaginatedBets = Paginated('PaginatedBets');

/** The read models each list reads (a consistent read waits for these only). */
const TIPS_READS = ['admin-tips', 'users'];
const WITHDRAWALS_READS = ['withdrawals', 'users'];
const DEPOSITS_READS = ['deposits', 'users'];
const BETS_READS = ['bets', 'users'];
const TRANSACTIONS_READS = ['transactions'];
const STATS_READS = ['deposits', 'withdrawals'];
const RAKEBACK_READS = ['rakeback'];

/** Query strings with nested keys (`where[status]=SETTLED`) or a JSON `where`, validated like parseQuery. */
const parseNestedQuery = <S extends z.ZodType>(schema: S, req: Request): z.output<S> => {
  const result = schema.safeParse(nestedQuery(req.originalUrl));
  if (!result.success) throw zodToHttp(result.error, 'query');
  return result.data;
};

/** The page as the body; where its total came from in `x-total-source`. */
const sendListed = (res: Response, { page, totalSource }: Listed<unknown>, status = 200): void => {
  res.setHeader('x-total-source', totalSource);
  res.status(status).json(page);
};

/** Back-office read side of the ledger: admin tips, withdrawals, deposits, bets, accounting log and USD stats. */
export const ledgerListsRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  const { pool } = deps;

  route(
    'get',
    '/admin-tips',
    { kind: 'perm', permission: 'admin-tips.view' },
    {
      readModels: TIPS_READS,
      summary: 'List admin tips',
      request: { query: AdminTipsQuery },
      responses: { 200: { description: 'Paginated admin tips', schema: Paginated('PaginatedAdminTips') } },
    },
    consistentRead(deps.reads, TIPS_READS),
    async (req, res) => {
      sendListed(res, await listAdminTips(pool, parseQuery(AdminTipsQuery, req)));
    },
  );

  route(
    'get',
    '/withdraw',
    { kind: 'perm', permission: 'withdrawals.view' },
    {
      readModels: WITHDRAWALS_READS,
      summary: 'List withdrawals',
      request: { query: WithdrawalsQuery },
      responses: { 200: { description: 'Paginated withdrawals', schema: Paginated('PaginatedWithdrawals', WithdrawalRecord) } },
    },
    consistentRead(deps.reads, WITHDRAWALS_READS),
    async (req, res) => {
      sendListed(res, await listWithdrawals(pool, parseQuery(WithdrawalsQuery, req)));
    },
  );

  route(
    'get',
    '/deposit',
    { kind: 'perm', permission: 'deposits.view' },
    {
      readModels: DEPOSITS_READS,
      summary: 'List deposits',
      request: { query: DepositsQuery },
      responses: { 200: { description: 'Paginated deposits', schema: Paginated('PaginatedDeposits') } },
    },
    consistentRead(deps.reads, DEPOSITS_READS),
    async (req, res) => {
      sendListed(res, await listDeposits(pool, parseQuery(DepositsQuery, req)));
    },
  );

  route(
    'get',
    '/bets',
    { kind: 'perm', permission: 'user.bets.view' },
    {
      readModels: BETS_READS,
      summary: 'List bets',
      request: { query: BetsQuery },
      responses: { 200: { description: 'Paginated bets', schema: PaginatedBets } },
    },
    consistentRead(deps.reads, BETS_READS),
    async (req, res) => {
      sendListed(res, await listBets(pool, parseNestedQuery(BetsQuery, req)));
    },
  );
  route(
    'post',
    '/bets',
    { kind: 'perm', permission: 'user.bets.view' },
    {
      readModels: BETS_READS,
      summary: 'List bets (filter in the body)',
      request: { body: BetsBody },
      responses: { 200: { description: 'Paginated bets', schema: PaginatedBets }, 201: { description: 'Declared by the spec; not sent' } },
    },
    consistentRead(deps.reads, BETS_READS),
    async (req, res) => {
      sendListed(res, await listBets(pool, parseBody(BetsBody, req)));
    },
  );

  route(
    'post',
    '/accounting/transactions',
    { kind: 'superadmin' },
    {
      readModels: TRANSACTIONS_READS,
      summary: 'List accounting transactions',
      request: { body: TransactionsBody },
      responses: {
        200: { description: 'Paginated transactions', schema: Paginated('PaginatedTransactions') },
        201: { description: 'Declared by the spec; not sent' },
      },
    },
    consistentRead(deps.reads, TRANSACTIONS_READS),
    async (req, res) => {
      sendListed(res, await listTransactions(pool, parseBody(TransactionsBody, req)));
    },
  );

  route(
    'get',
    '/user/stats/transactions',
    { kind: 'perm', permission: 'transaction.view' },
    {
      readModels: STATS_READS,
      summary: 'Deposit or withdrawal totals per period',
      request: { query: StatsTransactionsQuery },
      responses: {
        200: { description: 'Paginated totals per period', schema: Paginated('PaginatedTransactionBuckets', TransactionBucket) },
      },
    },
    consistentRead(deps.reads, STATS_READS),
    async (req, res) => {
      res.json(await statsTransactions(pool, parseQuery(StatsTransactionsQuery, req)));
    },
  );

  route(
    'get',
    '/user/:id/full/stats',
    { kind: 'superadmin' },
    {
      summary: "A user's admin stats",
      request: { params: FullStatsParams },
      responses: { 200: { description: 'Admin stats', schema: AdminStats } },
    },
    async (req, res) => {
      const { id } = parseParams(FullStatsParams, req);
      const stats = await fullStats(pool, id);
      if (!stats) throw new HttpError(404, 'USER_NOT_FOUND', `User ${id} not found`);
      res.json(stats);
    },
  );

  route(
    'post',
    '/rakeback/find-many',
    { kind: 'perm', permission: 'rakebacks.view' },
    {
      readModels: RAKEBACK_READS,
      summary: "A user's rakeback records",
      request: { body: RakebackBody },
      responses: { 201: { description: 'Array of rakeback records', schema: UntypedList } },
    },
    consistentRead(deps.reads, RAKEBACK_READS),
    async (req, res) => {
      const { where } = parseBody(RakebackBody, req);
      res.status(201).json(await rakebackRecords(pool, where.userId, where.currencyId));
    },
  );

  return router;
};
