/** bench:ledger's baselines: raw INSERTs from Node and pgbench, and what an append and a follow read cost the server. */
import { FOLLOWER_SETTINGS, WRITER_SETTINGS } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { followingStatement } from '../../src/infra/event-store/postgres/postgres.reads.js';
import { cpuLine, drive, type Driven } from '../lib/drive.js';
import type { LedgerBench } from './context.js';
import { appendScript, EXACT_STREAMS, exactScript, pgbenchRun } from './pgbench.js';
import { EVENT_DATA, LEVELS, POOL_SIZE, SECONDS } from './settings.js';

export const measureBaselines = async ({ pool, schema, report }: LedgerBench) => {
  // Baseline 1: raw single-row INSERTs from Node, same driver and pool size.
  console.log('baseline: raw INSERT from Node (pg, pool of %d)', POOL_SIZE);
  const raw: Driven[] = [];
  const rawInserts = (c: number, seconds: number) =>
    drive(c, seconds, async (client, i) => {
      await pool.query('INSERT INTO raw_events (stream_id, type, data) VALUES ($1, $2, $3)', [`wallet-${client}`, 'BetPlaced', EVENT_DATA]);
      return i >= 0 ? 1 : 0;
    });
  for (const c of LEVELS) {
    const r = await rawInserts(c, SECONDS);
    raw.push(r);
    console.log('  c=%d  %d inserts/s  p50 %s ms  p99 %s ms; %s', r.concurrency, r.opsPerSec, r.p50Ms, r.p99Ms, cpuLine(r));
  }
  report.rawInsertNode = raw;

  // Baseline 2: pgbench, the same INSERT, the server's own limit.
  const pgbench = [];
  for (const c of [1, 16, 64]) {
    const r = await pgbenchRun(schema, `INSERT INTO raw_events (stream_id, type, data) VALUES ('wallet-1', 'BetPlaced', :data);`, c);
    if (r) {
      pgbench.push({ concurrency: c, opsPerSec: r.tps, avgLatencyMs: r.latencyMs });
      console.log('baseline: pgbench c=%d  %d inserts/s  avg %d ms', c, r.tps, r.latencyMs);
    }
  }
  report.pgbench = pgbench;

  // What one group-commit append costs the server, next to inserting the same rows: at c=4 the four loops' commands leave
  // in one append, so a round of four costs one of these plus the Node work of four commands.
  const appendCost: Record<string, number | undefined> = {};
  await pool.query(`INSERT INTO streams (stream_id, revision) SELECT 'exact-' || i, 0 FROM generate_series(0, ${EXACT_STREAMS - 1}) i`);
  for (const [key, label, sql] of [
    ['roundTrip', 'SELECT 1, one round trip without a write', 'SELECT 1;'],
    ['insert1', 'INSERT of 1 event-sized row', `INSERT INTO raw_events (stream_id, type, data) VALUES ('wallet-1', 'BetPlaced', :data);`],
    [
      'insert4',
      'INSERT of 4 event-sized rows',
      `INSERT INTO raw_events (stream_id, type, data) SELECT 'wallet-1', 'BetPlaced', :data FROM generate_series(1, 4);`,
    ],
    ['append1', 'group-commit append of 1 command with its key', appendScript(1)],
    ['append4', 'group-commit append of 4 commands with their keys', appendScript(4)],
    ['exact1', 'the same for 1 held wallet, as sent: solo statement', exactScript(1)],
    ['exact4', 'the same for 4 held wallets, as sent: lean statement', exactScript(4)],
  ] as const) {
    const r = await pgbenchRun(schema, sql, 1, WRITER_SETTINGS);
    appendCost[`${key}Ms`] = r?.latencyMs;
    console.log('server cost (pgbench c=1, prepared): %s  avg %s ms', label.padEnd(50), r?.latencyMs ?? '?');
  }
  report.appendCostAtTheServer = appendCost;

  // A follower at the head reads the few events since its last read, about every 10 ms under load: planned once on the
  // store's follower connections, or planned afresh on each read.
  const head = await pool.query<{ t: string; g: string }>(
    `SELECT transaction_id::text AS t, global_position::text AS g FROM events
     ORDER BY transaction_id DESC, global_position DESC OFFSET 35 LIMIT 1`,
  );
  const behind = head.rows[0];
  if (behind) {
    const follow = `${followingStatement(500).text.replace(/\$1/g, `'${behind.t}'`).replace(/\$2/g, behind.g).replace(/\s+/g, ' ')};`;
    const once = await pgbenchRun(schema, follow, 1, FOLLOWER_SETTINGS);
    const each = await pgbenchRun(schema, follow, 1, [], 'simple');
    report.followReadAtTheServer = { events: 35, plannedOnceMs: once?.latencyMs, plannedEachReadMs: each?.latencyMs };
    console.log(
      'server cost (pgbench c=1): the follow read of the 35 newest events, planned once on the follower settings avg %s ms, planned on each read avg %s ms',
      once?.latencyMs ?? '?',
      each?.latencyMs ?? '?',
    );
  }
  return { raw, rawInserts, appendCost };
};
export type Baselines = Awaited<ReturnType<typeof measureBaselines>>;
