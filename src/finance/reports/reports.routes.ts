import { Router, type Request, type Response } from 'express';
import type { Permission } from '../../domain/user/permissions.js';
import type { BackOfficeDeps } from '../../http/back-office.deps.js';
import { guardedRoutes } from '../../http/access.js';
import { HttpError } from '../../http/http-errors.js';
import { parseParams, parseQuery } from '../../http/validate.js';
import type { Calendar } from '../../periods/periods.queries.js';
import { isRefused, runReport, type ReportRequest } from './reports.js';
import { FlowQuery, GamingQuery, PaymentsQuery, PeriodQuery, ReportView, StatementParams } from './reports.schemas.js';
import { reportCsv, reportJson, reportManifest } from './report.table.js';

const perm = (permission: Permission) => ({ kind: 'perm', permission }) as const;
const CSV_NOTE =
  'format=csv answers the same rows as RFC 4180 CSV (header first, CRLF); the JSON answer states its SHA-256, size and columns ' +
  'beforehand (`csv`), and the CSV answer repeats them in X-Report-Sha256 and X-Report-Rows.';

/** The finance reports: trial balance, player-funds liability, GGR/NGR, payments, adjustments, a player's statement. */
export const financeReportsRoutes = (deps: BackOfficeDeps & { calendar: Calendar }): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  const { pool, calendar } = deps;

  /** Runs the report and answers it as JSON, or as its CSV with format=csv. */
  const answer = async (req: Request, res: Response, request: ReportRequest): Promise<void> => {
    const r = await runReport(pool, calendar, request);
    if (isRefused(r)) throw new HttpError(400, 'VALIDATION_FAILED', `${r.field} ${r.message}`, [r]);
    const label = r.scope.kind === 'period' ? r.scope.period : `${r.scope.from}_${r.scope.to}`;
    if ((req.query.format ?? 'json') === 'csv') {
      const manifest = reportManifest(r.table);
      res
        .set({ 'X-Report-Sha256': manifest.sha256, 'X-Report-Rows': String(manifest.rows) })
        .type('text/csv; charset=utf-8')
        .attachment(`${r.report}-${label}.csv`)
        .send(reportCsv(r.table));
      return;
    }
    res.json(reportJson(r));
  };
  const responses = { 200: { description: 'The report (JSON), or its rows as CSV with format=csv', schema: ReportView } };
  route(
    'get',
    '/finance/reports/trial-balance',
    perm('balance.view'),
    {
      summary: 'Trial balance per currency at the end of a period, with USD at the period rate',
      addition: true,
      description: `A closed period: its sealed closing balances and totals. An open one: to date. ${CSV_NOTE}`,
      request: { query: PeriodQuery },
      responses,
    },
    async (req, res) => answer(req, res, { report: 'trial-balance', ...parseQuery(PeriodQuery, req) }),
  );
  route(
    'get',
    '/finance/reports/liability',
    perm('balance.view'),
    {
      summary: 'Player-funds liability per currency and in USD: player balances, withdrawals held, stakes of open bets',
      addition: true,
      description: `A closed period: its sealed close's figures. An open one: to date. ${CSV_NOTE}`,
      request: { query: PeriodQuery },
      responses,
    },
    async (req, res) => answer(req, res, { report: 'liability', ...parseQuery(PeriodQuery, req) }),
  );
  route(
    'get',
    '/finance/reports/gaming',
    perm('transaction.view'),
    {
      summary: 'GGR and NGR by day, game, provider or currency (and USD)',
      addition: true,
      description:
        'GGR = stakes - payouts - refunded stakes (rollbacks, errors); NGR = GGR - admin tips + admin deductions - leaderboard ' +
        `prizes - rakeback paid - affiliate commissions (NGR per day and per currency only). ${CSV_NOTE}`,
      request: { query: GamingQuery },
      responses,
    },
    async (req, res) => answer(req, res, { report: 'gaming', ...parseQuery(GamingQuery, req) }),
  );
  route(
    'get',
    '/finance/reports/payments',
    perm('deposits.view'),
    {
      summary: 'Deposits and withdrawals by provider, network, currency and day: how many reached each state, for how much',
      addition: true,
      description: `Providers report no fees to the ledger; a reconciliation of their statement shows them. ${CSV_NOTE}`,
      request: { query: PaymentsQuery },
      responses,
    },
    async (req, res) => answer(req, res, { report: 'payments', ...parseQuery(PaymentsQuery, req) }),
  );
  route(
    'get',
    '/finance/reports/adjustments',
    perm('admin-tips.view'),
    {
      summary: 'Admin adjustments by kind, tag and admin: tips, deductions, balance sets, leaderboard prizes, affiliate commissions',
      addition: true,
      description: `Amounts are signed from the players' point of view. ${CSV_NOTE}`,
      request: { query: FlowQuery },
      responses,
    },
    async (req, res) => answer(req, res, { report: 'adjustments', ...parseQuery(FlowQuery, req) }),
  );
  route(
    'get',
    '/finance/players/:userId/statement',
    perm('user.transactions.view'),
    {
      summary: "A player's account statement: opening balance, every movement with its business time, closing balance",
      addition: true,
      description: `Per currency, in business-time order; a period or a range of business days. ${CSV_NOTE}`,
      request: { params: StatementParams, query: FlowQuery },
      responses,
    },
    async (req, res) => {
      const { userId } = parseParams(StatementParams, req);
      const query = parseQuery(FlowQuery, req);
      const { rows } = await pool.query('SELECT 1 FROM users WHERE id = $1', [userId]);
      if (rows.length === 0) throw new HttpError(404, 'USER_NOT_FOUND', `User ${userId} not found`);
      await answer(req, res, { report: 'statement', userId, ...query });
    },
  );
  return router;
};
