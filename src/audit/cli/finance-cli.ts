import type pg from 'pg';
import { isRefused, REPORT_NAMES, runReport, type ReportName } from '../../finance/reports/reports.js';
import { reportCsv, reportJson, reportManifest } from '../../finance/reports/report.table.js';
import { storedCalendar } from './periods-cli.js';

type Io = Readonly<{ out: (line: string) => void; err: (line: string) => void }>;

export type FinanceOptions = Readonly<{
  report: string | undefined;
  period?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  groupBy?: string | undefined;
  userId?: number | undefined;
  json: boolean;
}>;

/**
 * `finance --report <name> (--period P | --from D --to D) [--group-by g] [--user id] [--json]`: the report's CSV on
 * stdout (its rows, SHA-256 and source on stderr), or its JSON. Exit 2 on a wrong option, naming it.
 */
export const runFinanceCommand = async (pool: pg.Pool, o: FinanceOptions, io: Io): Promise<number> => {
  if (!(REPORT_NAMES as readonly string[]).includes(o.report ?? '')) {
    io.err(`finance needs --report, one of ${REPORT_NAMES.join(', ')}`);
    return 2;
  }
  if (o.report === 'statement' && o.userId === undefined) {
    io.err('finance --report statement needs --user <id>');
    return 2;
  }
  const r = await runReport(pool, await storedCalendar(pool), {
    report: o.report as ReportName,
    period: o.period,
    from: o.from,
    to: o.to,
    groupBy: o.groupBy,
    userId: o.userId,
  });
  if (isRefused(r)) {
    io.err(`--${r.field.replace('query.', '')} ${r.message}`);
    return 2;
  }
  if (o.json) {
    io.out(JSON.stringify(reportJson(r), null, 2));
    return 0;
  }
  io.out(reportCsv(r.table).trimEnd());
  const m = reportManifest(r.table);
  const where = r.scope.kind === 'period' ? `period ${r.scope.period}` : `business days ${r.scope.from} to ${r.scope.to}`;
  io.err(`${r.report}: ${where} (${r.scope.timeZone}), ${m.rows} rows, sha256 ${m.sha256}, from the ${r.source}`);
  return 0;
};
