import type pg from 'pg';
import { AppError } from '../../shared/app-error.js';
import type { DateFilter } from '../where.js';

/** Where a list's `total` comes from: the kept counts (plus the partial days of a date range), or a capped scan. */
export type TotalPlan =
  | Readonly<{
      kind: 'counter';
      counts: string;
      keys?: readonly string[];
      range?: Readonly<{ from: string; to: string }>;
      edges?: readonly Readonly<{ condition: string; value: string }>[];
    }>
  | Readonly<{ kind: 'scan' }>;

export const SCAN: TotalPlan = { kind: 'scan' };

/** Whether only these fields of a filter are set (a filter matches a counter only when nothing else narrows it). */
export const only = (o: object, allowed: readonly string[]): boolean =>
  Object.entries(o).every(([k, v]) => v === undefined || allowed.includes(k));

export const statusTotal = (counts: string, q: { status?: string | undefined; userId?: number | undefined }): TotalPlan => {
  const key = [q.userId !== undefined ? `u:${q.userId}` : '', q.status ? `s:${q.status}` : ''].filter(Boolean).join('|');
  return { kind: 'counter', counts, keys: [key] };
};

/** The longest an exact count(*) may run before the caller is asked for a narrower filter. */
export const SCAN_TIMEOUT_MS = 1_500;

const DAY_MS = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** A createdAt range as whole UTC days of `prefix` keys plus its partial end days; undefined for gt with gte (lt with lte). */
export const dayRangePlan = (counts: string, prefix: string, column: string, f: DateFilter): TotalPlan | undefined => {
  if ((f.gt && f.gte) || (f.lt && f.lte)) return undefined;
  const lo = f.gte ?? f.gt;
  const hi = f.lte ?? f.lt;
  let start = -Infinity;
  if (lo) {
    const t = Date.parse(lo);
    const midnight = Math.ceil(t / DAY_MS) * DAY_MS;
    start = f.gt && midnight === t ? midnight + DAY_MS : midnight;
  }
  const end = hi ? Math.floor(Date.parse(hi) / DAY_MS) * DAY_MS : Infinity;
  if (!(start < end)) return undefined; // within one day: the exact count is bounded by the date index anyway
  const edges = [
    ...(Number.isFinite(start) ? [{ condition: `${column} < `, value: new Date(start).toISOString() }] : []),
    ...(Number.isFinite(end) ? [{ condition: `${column} >= `, value: new Date(end).toISOString() }] : []),
  ];
  return {
    kind: 'counter',
    counts,
    range: {
      from: Number.isFinite(start) ? `${prefix}${dayOf(start)}` : prefix,
      to: Number.isFinite(end) ? `${prefix}${dayOf(end)}` : `${prefix}~`,
    },
    edges,
  };
};

export const countTotal = async (
  pool: pg.Pool,
  plan: TotalPlan,
  from: string,
  where: string,
  values: readonly unknown[],
): Promise<number> => {
  if (plan.kind === 'counter') {
    // The filter's values only when the partial days are counted with its conditions (an unused parameter has no type).
    const v: unknown[] = plan.edges && plan.edges.length > 0 ? [...values] : [];
    const parts: string[] = [];
    if (plan.keys) {
      v.push(plan.keys);
      parts.push(`coalesce((SELECT sum(n) FROM ${plan.counts} WHERE key = ANY($${v.length}::text[])), 0)`);
    }
    if (plan.range) {
      v.push(plan.range.from, plan.range.to);
      parts.push(`coalesce((SELECT sum(n) FROM ${plan.counts} WHERE key >= $${v.length - 1} AND key < $${v.length}), 0)`);
    }
    for (const e of plan.edges ?? []) {
      v.push(e.value);
      const condition = `${e.condition}$${v.length}::timestamptz`;
      parts.push(`(SELECT count(*) FROM ${from} ${where ? `${where} AND ${condition}` : `WHERE ${condition}`})`);
    }
    const { rows } = await pool.query<{ total: string }>(`SELECT (${parts.join(' + ') || '0'})::bigint AS total`, v);
    return Number(rows[0]!.total);
  }
  const client = await pool.connect();
  try {
    await client.query(`BEGIN READ ONLY; SET LOCAL statement_timeout = ${SCAN_TIMEOUT_MS}`);
    const { rows } = await client.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${from} ${where}`, [...values]);
    await client.query('COMMIT');
    return rows[0]?.total ?? 0;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    if ((error as { code?: string }).code === '57014') {
      throw new AppError(
        'unprocessable',
        'FILTER_TOO_BROAD',
        `Counting the rows of this filter took longer than ${SCAN_TIMEOUT_MS} ms: ` +
          'narrow it (a status, a user, a date range) to get an exact total',
      );
    }
    throw error;
  } finally {
    client.release();
  }
};
