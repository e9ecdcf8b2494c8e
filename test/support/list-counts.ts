import type pg from 'pg';
import { COUNTED_LISTS } from '../../src/read-models/list-counts/list-counts.js';

/**
 * Every kept count that differs from a fresh count(*) of its list's rows, as "<counts> <key>: kept K, counted C"
 * (keys whose kept count is 0 and that match no row are fine).
 */
export const countsMismatches = async (pool: pg.Pool): Promise<string[]> => {
  const out: string[] = [];
  for (const l of COUNTED_LISTS) {
    const { rows } = await pool.query<{ key: string; kept: string | null; counted: string | null }>(
      `WITH counted AS (SELECT k AS key, count(*) AS n FROM ${l.table} AS r, unnest(${l.keys}) AS k GROUP BY k)
       SELECT coalesce(c.key, k.key) AS key, k.n::text AS kept, c.n::text AS counted
       FROM counted c FULL JOIN ${l.counts} k ON k.key = c.key
       WHERE coalesce(k.n, 0) <> coalesce(c.n, 0)`,
    );
    for (const r of rows) out.push(`${l.counts} '${r.key}': kept ${r.kept ?? 'none'}, counted ${r.counted ?? 0}`);
  }
  return out;
};

/** How many count keys the lists hold (a test that checks counts checks that there were some). */
export const countKeys = async (pool: pg.Pool): Promise<number> => {
  let n = 0;
  for (const l of COUNTED_LISTS) n += Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${l.counts}`)).rows[0]!.n);
  return n;
};
