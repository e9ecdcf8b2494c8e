import type pg from 'pg';
import { shortUserOf, type ShortUser } from '../domain/user/short-user.js';
import type { DecimalString } from '../domain/money/money.js';
import { SqlParams, whereClause } from './where.js';
import { countTotal, SCAN, type TotalPlan } from './list-counts/list-totals.js';
import { offsetOf, pageOf, type Page, type PageRequest } from '../shared/page.js';

export type AnyRow = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
export type SortOrder = 'asc' | 'desc';

/** A numeric column as the canonical decimal string of the APIs ("1.5", never "1.50000000"). */
export const dec = (column: string): string => `trim_scale(${column})::text`;
export const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/** The users read model joined under a prefix (`u_id`, `u_username`, ...), with the total wagered USD behind the VIP level. */
export const shortUserColumns = (alias: string, prefix: string): string =>
  `${alias}.id AS ${prefix}_id, ${alias}.username AS ${prefix}_username, ` +
  `${alias}.is_banned AS ${prefix}_is_banned, ${alias}.profile AS ${prefix}_profile, ` +
  `(SELECT trim_scale(s.total_wagered)::text FROM user_stats_usd s WHERE s.user_id = ${alias}.id) AS ${prefix}_wagered`;

export const shortUser = (row: Record<string, unknown>, prefix: string): ShortUser | null => {
  const id = row[`${prefix}_id`] as string | null | undefined;
  if (id === null || id === undefined) return null;
  return shortUserOf({
    id: Number(id),
    username: row[`${prefix}_username`] as string | null,
    isBanned: row[`${prefix}_is_banned`] === true,
    profile: row[`${prefix}_profile`] as Record<string, unknown> | null,
    wageredUsd: ((row[`${prefix}_wagered`] as string | null) ?? '0') as DecimalString,
  });
};

/** `key`: the main table's unique key; the page finds its keys first, so the skipped rows never join or build a select list. */
export type ListQuery = Readonly<{ select: string; from: string; conditions: readonly string[]; orderBy: string; key?: string }>;

/** A page of a list and where its total came from (the routes tell it in `x-total-source`). */
export type Listed<T> = Readonly<{ page: Page<T>; totalSource: TotalPlan['kind'] }>;

/** One page and the total (by `total`: counters or a capped scan). */
export const listPage = async <R extends pg.QueryResultRow, T>(
  pool: pg.Pool,
  q: ListQuery,
  p: SqlParams,
  page: PageRequest,
  map: (row: R) => T,
  total: TotalPlan = SCAN,
): Promise<Listed<T>> => {
  const where = whereClause(q.conditions);
  const countValues = [...p.values];
  const limit = p.add(page.take);
  const offset = p.add(offsetOf(page));
  const pageSql = q.key
    ? `SELECT ${q.select} FROM ${q.from} WHERE ${q.key} = ANY (ARRAY(
        SELECT ${q.key} FROM ${q.from} ${where} ORDER BY ${q.orderBy} LIMIT ${limit} OFFSET ${offset})) ORDER BY ${q.orderBy}`
    : `SELECT ${q.select} FROM ${q.from} ${where} ORDER BY ${q.orderBy} LIMIT ${limit} OFFSET ${offset}`;
  const [rows, count] = await Promise.all([pool.query<R>(pageSql, p.values), countTotal(pool, total, q.from, where, countValues)]);
  return { page: pageOf(rows.rows.map(map), count, page), totalSource: total.kind };
};

export const direction = (sortOrder: SortOrder): 'ASC' | 'DESC' => (sortOrder === 'asc' ? 'ASC' : 'DESC');
