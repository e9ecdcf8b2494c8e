/** bench:ledger's row with the read models on a worker thread, as the service runs them beside its APIs. */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startFollowersThread } from '../../src/followers/followers.thread.js';
import { createLocalBus } from '../../src/infra/bus.js';
import { createLogger } from '../../src/infra/logger.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { cpuLine } from '../lib/drive.js';
import type { LedgerBench } from './context.js';
import { catchUpFigures, spreadOf, type BlockSpread } from './figures.js';
import type { LedgerRig } from './pairs.js';
import { BLOCKS, COALESCE_MS, DATABASE_URL, LEVELS } from './settings.js';

export const followersOnThread = async (
  { schema, pool, report, glance }: LedgerBench,
  { ledger, pairs, blockFigures, printRate }: LedgerRig,
) => {
  // As the service runs them beside its APIs (more roles than the projector in one process): on a thread of their own.
  process.env.LOG_LEVEL ??= 'warn';
  const names = allProjections.map((p) => p.name);
  // First a catch-up from the first event, as after a restart, while this thread's event loop is watched.
  await pool.query(`TRUNCATE ${[...new Set(allProjections.flatMap((p) => p.tables))].join(', ')}`);
  await pool.query('DELETE FROM projection_checkpoints');
  const threadLoop = monitorEventLoopDelay({ resolution: 1 });
  threadLoop.enable();
  const threadCatchUpFrom = performance.now();
  const thread = await startFollowersThread({
    databaseUrl: DATABASE_URL,
    schema,
    only: ['projector'],
    coalesceMs: COALESCE_MS,
    bus: createLocalBus(),
    logger: createLogger({ level: 'warn' }),
    readModels: names,
  });
  try {
    const threadCaughtUp = () => thread.waitForModels(names, ledger.internals.handler.lastPosition());
    await threadCaughtUp();
    threadLoop.disable();
    const threadCatchUpMs = performance.now() - threadCatchUpFrom;
    const total = Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n);
    const onThreadCatchUp = catchUpFigures(total, threadCatchUpMs, threadLoop);
    report.readModelsCatchUpOnThread = onThreadCatchUp;
    console.log(
      'read models catching up on a thread of this process on the %s events so far: %s ms (%s events/s), ' +
        "this thread's event loop delayed p99 %s ms, max %s ms",
      ...Object.values(onThreadCatchUp),
    );
    console.log('ledger with every read model following on a thread of this process, as the service runs them beside its APIs:');
    const onThread = [];
    const threadSpreads: BlockSpread[] = [];
    for (const c of LEVELS) {
      const blocks = [];
      for (let block = 1; block <= BLOCKS; block += 1) {
        const r = await pairs(c, { quiet: threadCaughtUp, profile: block === 1 ? 'thread' : undefined });
        blocks.push(r);
        onThread.push({ ...blockFigures(block, c, r), placeP50Ms: r.placeP50Ms, settleP50Ms: r.settleP50Ms });
        printRate(c, r);
        console.log(
          '        p50 per command: place bet %s ms, settle %s ms; %s (both threads, read models included); ' +
            'event loop of the commands delayed p99 %s ms, max %s ms',
          r.placeP50Ms,
          r.settleP50Ms,
          cpuLine(r),
          r.loopDelayP99Ms,
          r.loopDelayMaxMs,
        );
      }
      if (BLOCKS > 1) threadSpreads.push(spreadOf(c, blocks));
    }
    report.ledgerCommandsFollowersOnThread = onThread;
    glance.push({ row: 'on a thread, as the service runs them', blocks: onThread });
    if (BLOCKS > 1) report.blockSpreadsFollowersOnThread = threadSpreads;
  } finally {
    await thread.stop();
  }
};
