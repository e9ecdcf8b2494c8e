/** bench:ledger's last figure: a rebuild of every read model from this run's events, its counts checked. */
import { allProjections } from '../../src/read-models/all-projections.js';
import { rebuildProjections } from '../../src/projections/rebuild.js';
import { COUNTED_LISTS } from '../../src/read-models/list-counts/list-counts.js';
import { round } from '../lib/stats.js';
import type { LedgerBench } from './context.js';
import type { LedgerRig } from './pairs.js';

/** Every kept count key whose value differs from a fresh count(*) (empty when the counts are right). */
const COUNTS_CHECK_SQL = COUNTED_LISTS.map(
  (l) => `(WITH counted AS (SELECT k AS key, count(*) AS n FROM ${l.table} AS r, unnest(${l.keys}) AS k GROUP BY k)
  SELECT coalesce(c.key, k.key) AS key FROM counted c FULL JOIN ${l.counts} k ON k.key = c.key WHERE coalesce(k.n, 0) <> coalesce(c.n, 0))`,
).join(' UNION ALL ');

export const rebuildEveryReadModel = async ({ pool, report }: LedgerBench, { store }: LedgerRig): Promise<void> => {
  // A rebuild of every read model from the events of this run (truncate, replay to the head), and its counts checked.
  const rebuildStart = performance.now();
  const rebuilt = await rebuildProjections({
    store,
    pool,
    projections: allProjections,
    batchSize: Number(process.env.BENCH_REBUILD_BATCH ?? 5000),
  });
  const rebuildMs = performance.now() - rebuildStart;
  const mismatches = (await pool.query<{ n: string }>(COUNTS_CHECK_SQL)).rows.length;
  report.rebuild = {
    events: rebuilt.events,
    ms: round(rebuildMs),
    eventsPerSec: round(rebuilt.events / (rebuildMs / 1000), 0),
    countKeysDifferingFromCountStar: mismatches,
  };
  console.log(
    'rebuild of every read model: %d events in %d ms = %d events/s; count keys differing from count(*): %d',
    rebuilt.events,
    round(rebuildMs),
    round(rebuilt.events / (rebuildMs / 1000), 0),
    mismatches,
  );
};
