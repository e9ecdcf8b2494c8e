/**
 * npm run projections:rebuild — truncates every read model and replays the whole event store into it.
 * Needs DATABASE_URL (the PostgreSQL holding the event store and the read models). Safe while the
 * service runs: the live projector sees its checkpoints reset and resumes behind the rebuild.
 */
import cliProgress from 'cli-progress';
import { createPool } from '../src/infra/pg.js';
import { createPostgresEventStore } from '../src/infra/event-store/postgres/postgres.event-store.js';
import { migrateEventStore } from '../src/infra/event-store/postgres/postgres.migration.js';
import { allProjections } from '../src/read-models/all-projections.js';
import { rebuildProjections } from '../src/projections/rebuild.js';
import { migrateNonCore } from '../src/schema.js';

const main = async (): Promise<void> => {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL is not set: point it at the PostgreSQL that holds the event store.');
    process.exitCode = 2;
    return;
  }
  const pool = createPool({ connectionString: url, max: 4, applicationName: 'projections-rebuild' });
  const store = createPostgresEventStore({ pool });
  const bar = new cliProgress.SingleBar(
    { format: 'rebuild [{bar}] {value}/{total} events | {percentage}% | {eta_formatted} left', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  try {
    await migrateEventStore(pool);
    await migrateNonCore(pool);
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM events');
    bar.start(Number(rows[0]?.n ?? 0), 0);
    const started = Date.now();
    const result = await rebuildProjections({
      store,
      pool,
      projections: allProjections,
      onProgress: ({ applied }) => bar.update(applied),
    });
    bar.update(result.events);
    bar.stop();
    console.log(
      `rebuilt ${allProjections.length} projections from ${result.events} events in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } catch (error) {
    bar.stop();
    console.error('rebuild failed:', error);
    process.exitCode = 1;
  } finally {
    await store.close();
    await pool.end();
  }
};

await main();
