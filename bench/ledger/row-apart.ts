/** bench:ledger's row with the read models followed by a process of their own, as docker-compose.yml deploys them. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { comparePositions, parsePosition, START } from '../../src/infra/event-store/event-store.port.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { processCpuMs } from '../lib/cpu.js';
import { round } from '../lib/stats.js';
import type { LedgerBench } from './context.js';
import { besideLine, spreadOf, type BlockSpread } from './figures.js';
import type { LedgerRig } from './pairs.js';
import { BLOCKS, DATABASE_URL, LEVELS, SECONDS } from './settings.js';

export const followersApart = async ({ schema, pool, report, glance }: LedgerBench, { ledger, pairs, blockFigures }: LedgerRig) => {
  // As docker-compose.yml deploys it: the read models followed by a process of their own, on the same machine.
  const followers = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'ledger.followers.ts')], {
    env: { ...process.env, DATABASE_URL, BENCH_SCHEMA: schema },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((r) => followers.once('exit', r));
  try {
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: followers.stdout! }).on('line', (line) => line === 'following' && resolve());
      followers.once('exit', (code) => reject(new Error(`the followers' process exited with code ${code}`)));
    });
    /** Until every read model's stored checkpoint has passed the ledger's last append. */
    const caughtUp = async (): Promise<void> => {
      const head = ledger.internals.handler.lastPosition();
      for (;;) {
        const { rows } = await pool.query<{ name: string; position: string }>('SELECT name, position FROM projection_checkpoints');
        const stored = new Map(rows.map((r) => [r.name, parsePosition(r.position)]));
        if (allProjections.every((p) => comparePositions(stored.get(p.name) ?? START, head) >= 0)) return;
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await caughtUp();
    console.log('ledger with every read model following in a process of its own: place bet + settle (2 commands per iteration)');
    const separate = [];
    const apartSpreads: BlockSpread[] = [];
    for (const c of LEVELS) {
      const blocks = [];
      for (let block = 1; block <= BLOCKS; block += 1) {
        const followersBefore = await processCpuMs(followers.pid!);
        const r = await pairs(c, { quiet: caughtUp });
        blocks.push(r);
        const followersAfter = await processCpuMs(followers.pid!);
        const commandsRun = Math.max(1, r.opsPerSec * SECONDS);
        const followersCpuUsPerCommand =
          followersBefore === undefined || followersAfter === undefined
            ? undefined
            : round(((followersAfter - followersBefore) * 1000) / commandsRun, 0);
        const caughtStart = performance.now();
        await caughtUp();
        const catchUpMs = round(performance.now() - caughtStart);
        separate.push({ ...blockFigures(block, c, r), catchUpMs, followersCpuUsPerCommand });
        console.log(
          '  c=%d  %d commands/s (%sx raw Node inserts at c=%d: %s/s; %s)  pair p50 %s ms; read models caught up %d ms after the load',
          c,
          r.opsPerSec,
          r.ratio ?? '?',
          c,
          r.rawAtC?.opsPerSec ?? '?',
          besideLine(r),
          r.p50Ms,
          catchUpMs,
        );
        console.log(
          "        CPU per command: this process %s µs, the followers' process %s µs (while the load ran), PostgreSQL %s µs",
          r.nodeCpuUsPerOp,
          followersCpuUsPerCommand ?? '?',
          r.postgresCpuUsPerOp ?? '?',
        );
      }
      if (BLOCKS > 1) apartSpreads.push(spreadOf(c, blocks));
    }
    report.ledgerCommandsFollowersApart = separate;
    glance.push({ row: 'in a process of their own', blocks: separate });
    if (BLOCKS > 1) report.blockSpreadsFollowersApart = apartSpreads;
  } finally {
    followers.kill('SIGTERM');
    await exited;
  }
};
