/**
 * bench:ledger's second process: every read model following the ledger of the bench's schema, as docker-compose.yml
 * deploys the projector (a process of its own). Prints "following" once started; SIGTERM stops it cleanly.
 */
import { createPostgresEventStore } from '../src/infra/event-store/postgres/postgres.event-store.js';
import { createPool } from '../src/infra/pg.js';
import { allProjections } from '../src/read-models/all-projections.js';
import { startProjector } from '../src/projections/projection-runner.js';

const pool = createPool({
  connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  schema: process.env.BENCH_SCHEMA!,
  max: 10,
});
const store = createPostgresEventStore({ pool, pollIntervalMs: 100 });
const coalesceMs = process.env.BENCH_COALESCE_MS ? Number(process.env.BENCH_COALESCE_MS) : undefined;
const projector = startProjector({ store, pool, projections: allProjections, coalesceMs });
console.log('following');
process.once('SIGTERM', () => {
  void (async () => {
    await projector.stop();
    await store.close();
    await pool.end();
    process.exit(0);
  })();
});
