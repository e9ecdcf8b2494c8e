import type pg from 'pg';
import { isPeriodId, type PeriodId } from '../../periods/periods.events.js';
import { periodBounds, type Calendar } from '../../periods/periods.queries.js';

/**
 * What a report covers. A period: what is booked in it (late items included, as its close books them); closed, its
 * figures are the sealed close's. A range: business days [from, to] in the calendar's zone, whatever period booked them.
 */
export type ReportScope =
  | Readonly<{ kind: 'period'; period: PeriodId; start: string; end: string; closed: boolean; timeZone: string }>
  | Readonly<{ kind: 'range'; from: string; to: string; timeZone: string }>;

export type ScopeInput = Readonly<{ period?: string; from?: string; to?: string }>;
export type ScopeError = Readonly<{ field: string; message: string }>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (d: string): boolean => DAY.test(d) && isPeriodId(d, 'day');
/** A range report reads one row per day and key: its length bounds its cost. */
export const MAX_RANGE_DAYS = 400;

export const lastClosed = async (db: Pick<pg.Pool, 'query'>): Promise<PeriodId | null> =>
  (await db.query<{ p: string | null }>('SELECT max(period) AS p FROM period_closes')).rows[0]?.p ?? null;

/** Resolves `period` or `from`+`to` (exactly one of the two) to a scope, or names the field that is wrong. */
export const resolveScope = async (
  db: Pick<pg.Pool, 'query'>,
  calendar: Calendar,
  input: ScopeInput,
): Promise<ReportScope | ScopeError> => {
  if (input.period !== undefined) {
    if (input.from !== undefined || input.to !== undefined)
      return { field: 'query.period', message: 'give either period or from and to, not both' };
    if (!isPeriodId(input.period, calendar.unit))
      return { field: 'query.period', message: `must be a ${calendar.unit === 'month' ? 'month YYYY-MM' : 'day YYYY-MM-DD'}` };
    const { start, end } = await periodBounds(db, calendar, input.period);
    const closed = await lastClosed(db);
    return { kind: 'period', period: input.period, start, end, closed: closed !== null && input.period <= closed, ...zone(calendar) };
  }
  if (input.from === undefined || !isDay(input.from)) return { field: 'query.from', message: 'must be a day YYYY-MM-DD (or give period)' };
  if (input.to === undefined || !isDay(input.to)) return { field: 'query.to', message: 'must be a day YYYY-MM-DD' };
  const days = (Date.parse(input.to) - Date.parse(input.from)) / 86_400_000;
  if (days < 0) return { field: 'query.to', message: 'must not be before from' };
  if (days >= MAX_RANGE_DAYS) return { field: 'query.to', message: `a range spans at most ${MAX_RANGE_DAYS} days` };
  return { kind: 'range', from: input.from, to: input.to, ...zone(calendar) };
};

const zone = (calendar: Calendar): { timeZone: string } => ({ timeZone: calendar.timeZone });

export const isScopeError = (s: ReportScope | ScopeError): s is ScopeError => 'field' in s;

/** The WHERE clause on a daily table's booking period or business day, its parameters starting at $`first`. */
export const scopeFilter = (scope: ReportScope, first: number): { sql: string; values: string[] } =>
  scope.kind === 'period'
    ? { sql: `period = $${first}`, values: [scope.period] }
    : { sql: `day BETWEEN $${first}::date AND $${first + 1}::date`, values: [scope.from, scope.to] };
