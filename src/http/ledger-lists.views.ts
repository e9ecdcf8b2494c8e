import type pg from 'pg';
import { SqlParams, whereClause } from './filters.js';
import type { Response } from 'express';
import { countTotal, SCAN, type TotalPlan } from './list-totals.js';
import { offsetOf, pageOf, type Page, type PageRequest } from './pagination.js';

/** A numeric column as the canonical decimal string of the APIs ("1.5", never "1.50000000"). */
export const dec = (column: string): string => `trim_scale(${column})::text`;
export const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

export type ShortUserRow = { id: string | null; username: string | null; is_banned: boolean | null; profile: Record<string, unknown> | null };
/** The users read model joined under a prefix (`u_id`, `u_username`, ...). */
export const shortUserColumns = (alias: string, prefix: string): string =>
  `${alias}.id AS ${prefix}_id, ${alias}.username AS ${prefix}_username, ${alias}.is_banned AS ${prefix}_is_banned, ${alias}.profile AS ${prefix}_profile`;

/** Spec "Short user"; avatars, privacy and VIP levels arrive with later issues (profile keys when present, else neutral values). */
export const shortUser = (row: Record<string, unknown>, prefix: string) => {
  const id = row[`${prefix}_id`] as string | null;
  if (id === null || id === undefined) return null;
  const profile = (row[`${prefix}_profile`] ?? {}) as Record<string, unknown>;
  return {
    id: Number(id), username: (row[`${prefix}_username`] as string | null) ?? '',
    isPrivate: profile.isPrivate === true, avatar: typeof profile.avatar === 'string' ? profile.avatar : '',
    vipLevel: typeof profile.vipLevel === 'number' ? profile.vipLevel : 0, isBanned: row[`${prefix}_is_banned`] === true,
  };
};

export type ListQuery = Readonly<{ select: string; from: string; conditions: readonly string[]; orderBy: string }>;

/** One page and the total (by `total`: counters or a capped scan); `x-total-source` tells which. */
export const listPage = async <R extends pg.QueryResultRow, T>(
  pool: pg.Pool, q: ListQuery, p: SqlParams, page: PageRequest, map: (row: R) => T, total: TotalPlan = SCAN, res?: Response,
): Promise<Page<T>> => {
  const where = whereClause(q.conditions);
  const countValues = [...p.values];
  const limit = p.add(page.take);
  const offset = p.add(offsetOf(page));
  const [rows, count] = await Promise.all([
    pool.query<R>(`SELECT ${q.select} FROM ${q.from} ${where} ORDER BY ${q.orderBy} LIMIT ${limit} OFFSET ${offset}`, p.values),
    countTotal(pool, total, q.from, where, countValues),
  ]);
  res?.setHeader('x-total-source', total.kind);
  return pageOf(rows.rows.map(map), count, page);
};

export const direction = (sortOrder: 'asc' | 'desc'): 'ASC' | 'DESC' => (sortOrder === 'asc' ? 'ASC' : 'DESC');
