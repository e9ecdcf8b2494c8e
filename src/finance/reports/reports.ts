import type pg from 'pg';
import type { Calendar } from '../../periods/periods.queries.js';
import { liabilityReport, trialBalanceReport } from './balances.queries.js';
import { gamingReport, type GamingGroup } from './gaming.queries.js';
import { adjustmentsReport, paymentsReport, type PaymentGroup } from './payments.queries.js';
import { isScopeError, resolveScope, type ReportScope, type ScopeError, type ScopeInput } from './reports.scope.js';

/** Whether a report run was refused for its scope (the field to fix). */
export const isRefused = (r: Report | ScopeError): r is ScopeError => 'field' in r;
import { jsonRows, type ReportRow, type ReportTable } from './report.table.js';
import { statementReport } from './statement.queries.js';

export const REPORT_NAMES = ['trial-balance', 'liability', 'gaming', 'payments', 'adjustments', 'statement'] as const;
export type ReportName = (typeof REPORT_NAMES)[number];

export type ReportRequest = ScopeInput & Readonly<{ report: ReportName; groupBy?: string | undefined; userId?: number | undefined }>;

export type Report = Readonly<{
  report: ReportName;
  scope: ReportScope;
  /** Where the figures come from: a closed period's sealed close, or the read models as of now. */
  source: 'sealed close' | 'read model to date' | 'read model';
  table: ReportTable;
  totals?: ReportRow[];
}>;

/** Stock reports read a period's end: a closed period's from its sealed close, an open one's to date. */
const STOCKS: readonly ReportName[] = ['trial-balance', 'liability'];

/** One report for the API, the CLI and the console alike; a wrong scope comes back as the field to fix. */
export const runReport = async (db: Pick<pg.Pool, 'query'>, calendar: Calendar, r: ReportRequest): Promise<Report | ScopeError> => {
  const stock = STOCKS.includes(r.report);
  if (stock && r.period === undefined) return { field: 'query.period', message: `${r.report} is read at the end of a period` };
  const scope = await resolveScope(db, calendar, r);
  if (isScopeError(scope)) return scope;
  const source =
    scope.kind === 'period' && scope.closed && stock
      ? 'sealed close'
      : scope.kind === 'period' && !scope.closed
        ? 'read model to date'
        : 'read model';
  const base = { report: r.report, scope, source } as const;
  switch (r.report) {
    case 'trial-balance': {
      const { totals, ...table } = await trialBalanceReport(db, scope as Extract<ReportScope, { kind: 'period' }>);
      return { ...base, table, totals };
    }
    case 'liability':
      return { ...base, table: await liabilityReport(db, scope as Extract<ReportScope, { kind: 'period' }>) };
    case 'gaming': {
      const group = (r.groupBy ?? 'day') as GamingGroup;
      const table = await gamingReport(db, scope, group);
      return group === 'currency' ? { ...base, table } : { ...base, table, totals: jsonRows(await gamingReport(db, scope, 'currency')) };
    }
    case 'payments':
      return { ...base, table: await paymentsReport(db, scope, (r.groupBy ?? 'day') as PaymentGroup) };
    case 'adjustments':
      return { ...base, table: await adjustmentsReport(db, scope) };
    case 'statement':
      return { ...base, table: await statementReport(db, r.userId!, scope) };
  }
};
