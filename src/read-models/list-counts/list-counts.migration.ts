import type { Migration } from '../../infra/migrate.js';
import { COUNTED_LISTS } from './list-counts.js';

/** One `<table>_counts` table per counted list. */
export const listCountsMigrations: readonly Migration[] = [
  {
    id: '0170_list_counts',
    sql: COUNTED_LISTS.map(
      (l) => `CREATE TABLE ${l.counts} (key text PRIMARY KEY, n bigint NOT NULL);
    CREATE INDEX ${l.counts}_emptied ON ${l.counts} (key) WHERE n = 0;`,
    ).join('\n'),
  },
  {
    // The decrement drops keys that reach zero, so nothing looks for n = 0; an index on n kept every update from being HOT.
    id: '0450_list_counts_hot',
    sql: COUNTED_LISTS.map((l) => `DROP INDEX IF EXISTS ${l.counts}_emptied;\nALTER TABLE ${l.counts} SET (fillfactor = 50);`).join('\n'),
  },
  {
    // The bets list always has a status: the keys without one (all bets, a user's bets) were kept and never read.
    id: '0453_bets_counts_status_keys',
    sql: `DELETE FROM bets_counts WHERE key = '' OR (key LIKE 'u:%' AND strpos(key, '|') = 0);`,
  },
];
