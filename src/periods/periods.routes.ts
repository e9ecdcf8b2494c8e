import { Router } from 'express';
import { isLeft } from 'fp-ts/lib/Either.js';
import { guardedRoutes } from '../http/access.js';
import { authOf } from '../http/auth.adapter.js';
import type { BackOfficeDeps } from '../http/back-office.deps.js';
import { HttpError } from '../http/http-errors.js';
import { parseParams, parseQuery, z } from '../http/validate.js';
import type { PeriodError, Periods } from './close-period.use-case.js';
import { closedPeriod, closedPeriods, closingBalanceCount, closingBalances, openingAndClosing } from './periods.queries.js';
import { CSV_FORMULA_GUARD, csvField, csvTextField } from '../audit/export.format.js';
import { BalancesPageQuery, ClosedPeriodView, ClosingBalancesView, PeriodParams, PeriodsView } from './periods.schemas.js';

const periodError = (e: PeriodError): HttpError => {
  switch (e._tag) {
    case 'PeriodInvalid':
      return new HttpError(400, 'VALIDATION_FAILED', `params.period ${e.message}`, [{ field: 'params.period', message: e.message }]);
    case 'PeriodAlreadyClosed':
      return new HttpError(409, 'PERIOD_ALREADY_CLOSED', `Period ${e.period} is closed; a closed period never reopens`);
    case 'PeriodNotNext':
      return new HttpError(409, 'PERIOD_NOT_NEXT', `Periods close in order: the next one to close is ${e.next}`);
    case 'PeriodNotEnded':
      return new HttpError(409, 'PERIOD_NOT_ENDED', `Period ${e.period} ends at ${e.end}; it can be closed after that`);
  }
};

const SUPERADMIN = { kind: 'superadmin' } as const;
const READ = { kind: 'perm', permission: 'balance.view' } as const;

/** The books' periods: list them, close the next one (SuperAdmin), read a closed period's report and closing balances. */
export const periodsRoutes = (deps: BackOfficeDeps & { periods: Periods }): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry, '', {
    409: ['PERIOD_ALREADY_CLOSED', 'PERIOD_NOT_NEXT', 'PERIOD_NOT_ENDED'],
  });
  const { periods, pool } = deps;

  route(
    'get',
    '/ledger/periods',
    READ,
    {
      summary: 'The periods the books close by, the closed ones, and the next one to close',
      addition: true,
      responses: { 200: { description: 'The calendar and the closed periods', schema: PeriodsView } },
    },
    async (_req, res) => {
      const closed = await closedPeriods(pool);
      res.json({
        timeZone: periods.calendar.timeZone,
        unit: periods.calendar.unit,
        nextToClose: (await periods.nextToClose()) ?? null,
        closed: closed.map((c) => ({
          period: c.period,
          start: String(c.report.start),
          end: String(c.report.end),
          closedAt: String(c.report.closedAt),
          closedBy: Number(c.report.closedBy),
          sealed: c.sealed,
        })),
      });
    },
  );

  route(
    'post',
    '/ledger/periods/:period/close',
    SUPERADMIN,
    {
      summary: 'Close a period: nothing posts into it afterwards; its closing report is written once and sealed',
      addition: true,
      description:
        'Closes go in order and a closed period never reopens (409 PERIOD_ALREADY_CLOSED, PERIOD_NOT_NEXT, PERIOD_NOT_ENDED). ' +
        'A money event recorded later with a business time in this period is booked in the first open period and listed ' +
        "there as a late item. Two closes at once: one wins, the other gets 409. Recorded as an event (the admin audit log's " +
        '`period.close`).',
      request: { params: PeriodParams },
      responses: { 201: { description: 'The closing report', schema: ClosedPeriodView } },
    },
    async (req, res) => {
      const { period } = parseParams(PeriodParams, req);
      const closed = await periods.close(period, authOf(req).userId);
      if (isLeft(closed)) throw periodError(closed.left);
      res.status(201).json({ ...closed.right, state: 'CLOSED' });
    },
  );

  route(
    'get',
    '/ledger/periods/:period/report',
    READ,
    {
      summary: "A closed period's closing report",
      addition: true,
      request: { params: PeriodParams },
      responses: { 200: { description: 'The closing report', schema: ClosedPeriodView } },
    },
    async (req, res) => {
      const { period } = parseParams(PeriodParams, req);
      const closed = await closedPeriod(pool, period);
      if (!closed) throw new HttpError(404, 'PERIOD_NOT_CLOSED', `Period ${period} is not closed`);
      res.json({ ...closed, state: 'CLOSED', balances: await closingBalanceCount(pool, period) });
    },
  );

  route(
    'get',
    '/ledger/periods/:period/balances',
    READ,
    {
      summary: "A closed period's closing balance of every account (each player wallet per currency, every house account)",
      addition: true,
      request: { params: PeriodParams, query: BalancesPageQuery },
      responses: { 200: { description: 'A page of closing balances, by account', schema: ClosingBalancesView } },
    },
    async (req, res) => {
      const { period } = parseParams(PeriodParams, req);
      const { page, limit } = parseQuery(BalancesPageQuery, req);
      if (!(await closedPeriod(pool, period))) throw new HttpError(404, 'PERIOD_NOT_CLOSED', `Period ${period} is not closed`);
      const { total, balances } = await closingBalances(pool, period, { limit, offset: (page - 1) * limit });
      res.json({ period, total, page, limit, balances });
    },
  );
  route(
    'get',
    '/ledger/periods/:period/balances.csv',
    READ,
    {
      summary: "A closed period's opening and closing balance of every account, as RFC 4180 CSV",
      addition: true,
      description:
        `Columns account, currencyId, opening, closing; ${CSV_FORMULA_GUARD}. ` + 'The digest of the report covers the closing balances.',
      request: { params: PeriodParams },
      responses: { 200: { description: 'text/csv; header row first', schema: z.string() } },
    },
    async (req, res) => {
      const { period } = parseParams(PeriodParams, req);
      const closed = await closedPeriod(pool, period);
      if (!closed) throw new HttpError(404, 'PERIOD_NOT_CLOSED', `Period ${period} is not closed`);
      const rows = await openingAndClosing(pool, period, (closed.report.previous as string | null) ?? null);
      const lines = [
        'account,currencyId,opening,closing',
        ...rows.map((r) => [csvTextField(r.account), csvTextField(r.currencyId), csvField(r.opening), csvField(r.closing)].join(',')),
      ];
      res
        .type('text/csv; charset=utf-8')
        .attachment(`closing-balances-${period}.csv`)
        .send(`${lines.join('\r\n')}\r\n`);
    },
  );
  return router;
};
