import type { Row, Sql } from '../../projections/projection.js';

/**
 * Counts behind the lists' `total`, kept with the rows in one transaction. Keys: '' (all), `s:` status, `u:` user,
 * `d:` UTC day of created_at, combined with `|`; `r:`/`x:` a tip's recipient/sender.
 */
export type CountedList = Readonly<{
  table: string;
  counts: string;
  idType: 'text' | 'integer';
  /** SQL over the row alias `r` giving its keys (text[]). */
  keys: string;
}>;

const day = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

const statusKeys =
  `ARRAY['', 's:' || r.status, 'u:' || r.user_id, 'u:' || r.user_id || '|s:' || r.status, ` +
  `'s:' || r.status || '|d:' || ${day('r.created_at')}]`;

export const BETS_COUNTS: CountedList = { table: 'bets', counts: 'bets_counts', idType: 'text', keys: statusKeys };
export const DEPOSITS_COUNTS: CountedList = { table: 'deposits', counts: 'deposits_counts', idType: 'text', keys: statusKeys };
export const WITHDRAWALS_COUNTS: CountedList = { table: 'withdrawals', counts: 'withdrawals_counts', idType: 'text', keys: statusKeys };
export const TRANSACTIONS_COUNTS: CountedList = {
  table: 'transactions',
  counts: 'transactions_counts',
  idType: 'text',
  keys: `ARRAY['', 'u:' || r.user_id, 'd:' || ${day('r.created_at')}]`,
};
export const ADMIN_TIPS_COUNTS: CountedList = {
  table: 'admin_tips',
  counts: 'admin_tips_counts',
  idType: 'integer',
  keys: `ARRAY['', 'r:' || r.recipient_user_id, 'x:' || r.sender_user_id]`,
};

export const COUNTED_LISTS: readonly CountedList[] = [
  BETS_COUNTS,
  DEPOSITS_COUNTS,
  WITHDRAWALS_COUNTS,
  TRANSACTIONS_COUNTS,
  ADMIN_TIPS_COUNTS,
];

const adjust = (list: CountedList, ids: readonly unknown[], sign: 1 | -1): Sql => ({
  derived: true,
  text: `INSERT INTO ${list.counts} (key, n)
    SELECT k, ${sign} * count(*) FROM ${list.table} AS r, unnest(${list.keys}) AS k WHERE r.id = ANY($1::${list.idType}[]) GROUP BY k
    ON CONFLICT (key) DO UPDATE SET n = ${list.counts}.n + excluded.n`,
  values: [ids.map(String)],
});

/** The statements with the counts in step: patched rows leave their old keys before them, all touched rows join after. */
export const counted = (
  list: CountedList,
  created: readonly Row[],
  patched: readonly Row[],
  statements: readonly Sql[],
  id = 'id',
): Sql[] => {
  const before = patched.map((r) => r[id]);
  const after = [...created.map((r) => r[id]), ...before];
  if (before.length === 0) return [...statements, ...(after.length > 0 ? [adjust(list, after, 1)] : [])];
  // A key the changed rows all left is dropped (found through the partial index on n = 0): a rebuild leaves none either.
  return [
    adjust(list, before, -1),
    ...statements,
    adjust(list, after, 1),
    { text: `DELETE FROM ${list.counts} WHERE n = 0`, values: [], derived: true },
  ];
};

/** The counts from the rows, in one pass: what a bulk replay runs once instead of adjusting them batch by batch. */
export const recount = (list: CountedList): Sql[] => [
  { text: `DELETE FROM ${list.counts}`, values: [] },
  {
    text: `INSERT INTO ${list.counts} (key, n) SELECT k, count(*) FROM ${list.table} AS r, unnest(${list.keys}) AS k GROUP BY k`,
    values: [],
  },
];
