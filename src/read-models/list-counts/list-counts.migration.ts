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
];
