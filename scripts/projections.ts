/**
 * npm run projections -- <command>   (needs DATABASE_URL; EVENT_STORE / EVENTSTORE_CONNECTION_STRING as the service)
 *
 *   status [--json] [--lag-cap N]     each projection's checkpoint, version, lag (events, seconds) and rebuild in progress
 *   rebuild [--projection NAME]...    blue/green: rebuild into new tables while the live ones serve, then switch
 *           [--batch-size N] [--switch-timeout MS] [--no-resume]
 *                                     (no --projection: every projection, in one shadow; a projection that reads
 *                                     another's tables brings it along)
 *   rebuild --in-place [...]          the old way: truncate and replay under the live projector (read models empty meanwhile)
 *   abort --id ID                     abort a running or stale blue/green rebuild and drop its shadow tables
 *
 * Deploying a new projection version: run `rebuild --projection NAME` from the new release while the old one
 * serves; after the switch, old projectors leave that projection alone, and the new release continues it.
 */
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import type pg from 'pg';
import type { EventStore, Position } from '../src/infra/event-store/event-store.port.js';
import { formatPosition } from '../src/infra/event-store/event-store.port.js';
import { createPostgresEventStore } from '../src/infra/event-store/postgres/postgres.event-store.js';
import { migrateEventStore } from '../src/infra/event-store/postgres/postgres.migration.js';
import { createPool } from '../src/infra/pg.js';
import { abortRebuild, rebuildBlueGreen, withDependencies } from '../src/projections/blue-green.js';
import { allProjections } from '../src/read-models/all-projections.js';
import { projectionStatus, type ProjectionStatus } from '../src/projections/projection-status.js';
import { rebuildProjections } from '../src/projections/rebuild.js';
import { migrateNonCore } from '../src/schema.js';

const USAGE = 'usage: npm run projections -- status [--json] | rebuild [--projection NAME]... [--in-place] | abort --id ID';

const openStore = async (pool: pg.Pool): Promise<EventStore> => {
  if (process.env.EVENT_STORE !== 'eventstoredb') return createPostgresEventStore({ pool });
  const connectionString = process.env.EVENTSTORE_CONNECTION_STRING;
  if (!connectionString) throw new Error('EVENTSTORE_CONNECTION_STRING is required when EVENT_STORE=eventstoredb');
  const { createKurrentDbEventStore } = await import('../src/infra/event-store/kurrentdb.event-store.js');
  return createKurrentDbEventStore({ connectionString });
};

const logger = {
  info: (obj: object, msg?: string) => console.error(msg ?? '', JSON.stringify(obj)),
  warn: (obj: object, msg?: string) => console.error(`warning: ${msg ?? ''}`, JSON.stringify(obj)),
  error: (obj: object, msg?: string) => console.error(`error: ${msg ?? ''}`, JSON.stringify(obj)),
};

const lagText = (lag: ProjectionStatus['lag']): string => `${lag.events}${lag.capped ? '+' : ''} ev / ${lag.seconds.toFixed(1)} s`;
const pos = (p: Position | null): string => (p ? formatPosition(p) : '-');

const printStatus = (rows: readonly ProjectionStatus[]): void => {
  const table = [
    ['projection', 'version', 'checkpoint', 'lag', 'rebuild'],
    ...rows.map((s) => [
      s.name,
      s.storedVersion === null
        ? `${s.version} (never run)`
        : s.storedVersion === s.version
          ? String(s.version)
          : `${s.version} (live: ${s.storedVersion})`,
      pos(s.position),
      lagText(s.lag),
      s.rebuild
        ? `${s.rebuild.alive ? 'running' : 'STALE'} ${s.rebuild.id} v${s.rebuild.version} at ${pos(s.rebuild.position)} (${lagText(s.rebuild.lag)})`
        : '-',
    ]),
  ];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  for (const r of table)
    console.log(
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
  if (rows[0]) console.log(`head: ${formatPosition(rows[0].head)}`);
};

const positiveInt = (value: string | undefined, name: string): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`);
  return n;
};

const main = async (): Promise<void> => {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      projection: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      'lag-cap': { type: 'string' },
      'in-place': { type: 'boolean' },
      'batch-size': { type: 'string' },
      'switch-timeout': { type: 'string' },
      'no-resume': { type: 'boolean' },
      id: { type: 'string' },
    },
  });
  const command = positionals[0];
  if (!command || !['status', 'rebuild', 'abort'].includes(command)) {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL is not set: point it at the PostgreSQL that holds the read models.');
    process.exitCode = 2;
    return;
  }
  const pool = createPool({ connectionString: url, max: 6, applicationName: `projections-${command}` });
  const store = await openStore(pool);
  try {
    if (store.kind === 'postgres') await migrateEventStore(pool);
    await migrateNonCore(pool);
    if (command === 'status') {
      const rows = await projectionStatus({
        pool,
        store,
        projections: allProjections,
        lagCap: positiveInt(values['lag-cap'], '--lag-cap'),
      });
      if (values.json) console.log(JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2));
      else printStatus(rows);
      return;
    }
    if (command === 'abort') {
      if (!values.id) throw new Error('abort needs --id (see `status`)');
      const outcome = await abortRebuild(pool, values.id);
      console.log(
        {
          aborted: 'aborted; its shadow tables are dropped',
          signalled: 'aborted; its process stops at its next batch',
          'not-running': 'no running rebuild has that id',
        }[outcome],
      );
      if (outcome === 'not-running') process.exitCode = 1;
      return;
    }
    const projections = values.projection?.length ? withDependencies(values.projection, allProjections) : [...allProjections];
    const batchSize = positiveInt(values['batch-size'], '--batch-size');
    const { rows } = await pool.query<{ n: string }>(store.kind === 'postgres' ? 'SELECT count(*) AS n FROM events' : 'SELECT 0 AS n');
    const bar = new cliProgress.SingleBar(
      { format: 'rebuild [{bar}] {value}/{total} events | {percentage}% | {eta_formatted} left', hideCursor: true, stream: process.stderr },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Number(rows[0]?.n ?? 0), 0);
    const started = Date.now();
    const names = projections.map((p) => p.name).join(', ');
    try {
      if (values['in-place']) {
        const result = await rebuildProjections({ store, pool, projections, batchSize, onProgress: ({ applied }) => bar.update(applied) });
        bar.stop();
        console.log(`rebuilt ${names} in place from ${result.events} events in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      } else {
        const result = await rebuildBlueGreen({
          store,
          pool,
          projections,
          batchSize,
          logger,
          resume: !values['no-resume'],
          switchLockTimeoutMs: positiveInt(values['switch-timeout'], '--switch-timeout'),
          onProgress: ({ applied }) => bar.update(applied),
        });
        bar.stop();
        console.log(
          `rebuilt ${names} blue/green (${result.id}${result.resumed ? ', resumed' : ''}) from ${result.events} events in ${((Date.now() - started) / 1000).toFixed(1)} s;` +
            ` switched at ${formatPosition(result.position)} in ${result.switchMs} ms (attempt ${result.switchAttempts}, ${result.tail} events in the switch)`,
        );
      }
    } finally {
      bar.stop();
    }
  } catch (error) {
    console.error(`${command} failed:`, (error as Error).message);
    process.exitCode = 1;
  } finally {
    await store.close();
    await pool.end();
  }
};

await main();
