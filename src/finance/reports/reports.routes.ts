import { Router, type Request, type Response } from 'express';
import type { Permission } from '../../domain/user/permissions.js';
import type { BackOfficeDeps } from '../../http/back-office.deps.js';
import { guardedRoutes } from '../../http/access.js';
import { HttpError } from '../../http/http-errors.js';
import { parseParams, parseQuery } from '../../http/validate.js';
import type { Calendar } from '../../periods/periods.queries.js';
import { trialBalanceReport, liabilityReport } from './balances.queries.js';
import { gamingReport } from './gaming.queries.js';
import { adjustmentsReport, paymentsReport } from './payments.queries.js';
import { isScopeError, resolveScope, type ReportScope, type ScopeInput } from './reports.scope.js';
import { FlowQuery, GamingQuery, PaymentsQuery, PeriodQuery, ReportView, StatementParams } from './reports.schemas.js';
import { jsonRows, reportCsv, reportManifest, type ReportRow, type ReportTable } from './report.table.js';
import { statementReport } from './statement.queries.js';

const perm = (permission: Permission) => ({ kind: 'perm', permission }) as const;
const CSV_NOTE =
  'format=csv answers the same rows as RFC 4180 CSV (header first, CRLF); the JSON answer states its SHA-256, size and columns ' +
  'beforehand (`csv`), and the CSV answer repeats them in X-Report-Sha256 and X-Report-Rows.';

/** The finance reports: trial balance, player-funds liability, GGR/NGR, payments, adjustments, a player's statement. */
export const financeReportsRoutes = (deps: BackOfficeDeps & { calendar: Calendar }): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  const { pool, calendar } = deps;

  const scopeOf = async (input: ScopeInput): Promise<ReportScope> => {
    const scope = await resolveScope(pool, calendar, input);
    if (isScopeError(scope)) throw new HttpError(400, 'VALIDATION_FAILED', `${scope.field} ${scope.message}`, [scope]);
    return scope;
  };
  const periodScope = async (period: string): Promise<Extract<ReportScope, { kind: 'period' }>> =>
    (await scopeOf({ period })) as Extract<ReportScope, { kind: 'period' }>;

  const answer = (
    req: Request,
    res: Response,
    name: string,
    scope: ReportScope,
    table: ReportTable & { totals?: ReportRow[] },
    source: string,
  ): void => {
    if ((req.query.format ?? 'json') === 'csv') {
      const csv = reportCsv(table);
      const manifest = reportManifest(table);
      const label = scope.kind === 'period' ? scope.period : `${scope.from}_${scope.to}`;
      res
        .set({ 'X-Report-Sha256': manifest.sha256, 'X-Report-Rows': String(manifest.rows) })
        .type('text/csv; charset=utf-8')
        .attachment(`${name}-${label}.csv`)
        .send(csv);
      return;
    }
    res.json({
      report: name,
      scope: { ...scope, axis: 'business time' },
      source,
      columns: table.columns.map((c) => c.name),
      rows: jsonRows(table),
      ...(table.totals ? { totals: table.totals } : {}),
      csv: reportManifest(table),
    });
  };
  const sourceOf = (scope: ReportScope, closedSource = 'read model'): string =>
    scope.kind === 'period' && scope.closed ? closedSource : scope.kind === 'period' ? 'read model to date' : 'read model';
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
    async (req, res) => {
      const scope = await periodScope(parseQuery(PeriodQuery, req).period);
      answer(req, res, 'trial-balance', scope, await trialBalanceReport(pool, scope), sourceOf(scope, 'sealed close'));
    },
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
    async (req, res) => {
      const scope = await periodScope(parseQuery(PeriodQuery, req).period);
      answer(req, res, 'liability', scope, await liabilityReport(pool, scope), sourceOf(scope, 'sealed close'));
    },
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
    async (req, res) => {
      const q = parseQuery(GamingQuery, req);
      const scope = await scopeOf(q);
      const table = await gamingReport(pool, scope, q.groupBy);
      const totals = q.groupBy === 'currency' ? undefined : jsonRows(await gamingReport(pool, scope, 'currency'));
      answer(req, res, 'gaming', scope, { ...table, ...(totals ? { totals } : {}) }, sourceOf(scope));
    },
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
    async (req, res) => {
      const q = parseQuery(PaymentsQuery, req);
      const scope = await scopeOf(q);
      answer(req, res, 'payments', scope, await paymentsReport(pool, scope, q.groupBy), sourceOf(scope));
    },
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
    async (req, res) => {
      const scope = await scopeOf(parseQuery(FlowQuery, req));
      answer(req, res, 'adjustments', scope, await adjustmentsReport(pool, scope), sourceOf(scope));
    },
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
      const scope = await scopeOf(parseQuery(FlowQuery, req));
      const { rows } = await pool.query('SELECT 1 FROM users WHERE id = $1', [userId]);
      if (rows.length === 0) throw new HttpError(404, 'USER_NOT_FOUND', `User ${userId} not found`);
      const table = await statementReport(pool, userId, scope);
      answer(req, res, 'statement', scope, table, sourceOf(scope));
    },
  );
  return router;
};
