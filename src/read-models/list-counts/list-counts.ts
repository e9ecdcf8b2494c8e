import { insertRows, type Row, type Sql } from '../../projections/projection.js';

/** Counts behind a list's `total`, kept with its rows. Keys: '' all, `s:` status, `u:` user, `d:` UTC day, joined by `|`. */
// Admin tips: `r:` recipient, `x:` sender.
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

/** The bets list always filters by status (SETTLED by default): only keys with a status are ever read. */
export const BETS_COUNTS: CountedList = {
  table: 'bets',
  counts: 'bets_counts',
  idType: 'text',
  keys: `ARRAY['s:' || r.status, 'u:' || r.user_id || '|s:' || r.status, 's:' || r.status || '|d:' || ${day('r.created_at')}]`,
};
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

const keysOf = (list: CountedList): string =>
  `SELECT k, count(*) AS n FROM ${list.table} AS r, unnest(${list.keys}) AS k WHERE r.id = ANY($1::${list.idType}[]) GROUP BY k`;

const join = (list: CountedList, ids: readonly unknown[]): Sql => ({
  derived: true,
  text: upsert(list, keysOf(list)),
  values: [ids.map(String)],
});

/** A key the rows all leave is dropped, as a rebuild would not have it; the update and the delete touch different rows. */
const leave = (list: CountedList, ids: readonly unknown[]): Sql => ({
  derived: true,
  text: `WITH d AS (${keysOf(list)}),
      kept AS (UPDATE ${list.counts} AS c SET n = c.n - d.n FROM d WHERE c.key = d.k AND c.n <> d.n)
    DELETE FROM ${list.counts} AS c USING d WHERE c.key = d.k AND c.n = d.n`,
  values: [ids.map(String)],
});

const upsert = (list: CountedList, keys: string): string =>
  `INSERT INTO ${list.counts} (key, n) ${keys} ON CONFLICT (key) DO UPDATE SET n = ${list.counts}.n + excluded.n`;

/** New rows and their counts in one statement: the keys come from the rows as stored (RETURNING), not read back by id. */
const insertCounted = (list: CountedList, rows: readonly Row[]): Sql => {
  const insert = insertRows(list.table, rows)[0]!;
  return {
    derived: true,
    text: `WITH r AS (${insert.text} RETURNING *) ${upsert(list, `SELECT k, count(*) AS n FROM r, unnest(${list.keys}) AS k GROUP BY k`)}`,
    values: insert.values,
    underived: insert,
  };
};

/**
 * A list's statements with its counts in step: patched rows leave their old keys before the patch and join their new
 * ones after it; created rows are inserted and counted together.
 */
export const counted = (list: CountedList, created: readonly Row[], patched: readonly Row[], patch: readonly Sql[], id = 'id'): Sql[] => {
  const ids = patched.map((r) => r[id]);
  return [
    ...(ids.length > 0 ? [leave(list, ids)] : []),
    ...(created.length > 0 ? [insertCounted(list, created)] : []),
    ...patch,
    ...(ids.length > 0 ? [join(list, ids)] : []),
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
