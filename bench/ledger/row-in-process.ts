/** bench:ledger's row with every read model following in this process: catch-up, lag, steady loads and their costs. */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { shareSubscriptions } from '../../src/infra/follow/shared-subscriptions.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { startProjector } from '../../src/projections/projection-runner.js';
import { createReadModelWaiter } from '../../src/projections/read-model-waiter.js';
import { cpuLine } from '../lib/drive.js';
import { percentile, round } from '../lib/stats.js';
import type { Baselines } from './baselines.js';
import type { LedgerBench } from './context.js';
import { catchUpFigures, spreadOf, type BlockSpread } from './figures.js';
import type { LedgerRig } from './pairs.js';
import { BLOCKS, COALESCE_MS, LEVELS } from './settings.js';
import { steadyPhase } from './steady-load.js';

export const followersInProcess = async (
  { pool, report, glance }: LedgerBench,
  { raw }: Baselines,
  { store, ledger, placeBet, pairs, printRate, blockFigures }: LedgerRig,
  aloneSpreads: BlockSpread[],
): Promise<void> => {
  const spreads: { alone: BlockSpread[]; inProcess: BlockSpread[] } = { alone: aloneSpreads, inProcess: [] };
  const batches: number[] = [];
  const batchTimes: number[] = [];
  // Then as in production: every read model follows on its own, from one shared read of new events. They start from
  // the beginning, so they first catch up on every event so far, as a projector does after a restart.
  const storeReads = { calls: 0, events: 0 };
  const followed = shareSubscriptions({
    ...store,
    readAll: async (o) => {
      const events = await store.readAll(o);
      storeReads.calls += 1;
      storeReads.events += events.length;
      return events;
    },
  });
  const backlog = Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n);
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const catchUpFrom = performance.now();
  const projector = startProjector({
    store: followed,
    pool,
    projections: allProjections,
    coalesceMs: COALESCE_MS,
    onBatch: ({ events }) => {
      batches.push(events);
      batchTimes.push(performance.now());
    },
  });
  const waiter = createReadModelWaiter({ pool, store, local: projector });
  const lagPerModel = new Map<string, number[]>(allProjections.map((p) => [p.name, []]));
  /** Lag of every read model and of all of them, from a command's acknowledgement. */
  const pendingSamples: Promise<unknown>[] = [];
  const sampleLag = (overall: number[]): void => {
    const at = ledger.internals.handler.lastPosition();
    const t0 = performance.now();
    for (const [name, samples] of lagPerModel) {
      pendingSamples.push(projector.waitForModels([name], at).then(() => samples.push(performance.now() - t0)));
    }
    pendingSamples.push(projector.waitFor(at).then(() => overall.push(performance.now() - t0)));
  };
  /** The slowest samples come in last: leaving them out would report a lag lower than it was. */
  const allSamplesIn = async (): Promise<void> => {
    await Promise.all(pendingSamples);
    pendingSamples.length = 0;
  };
  await projector.waitFor(ledger.internals.handler.lastPosition());
  loopDelay.disable();
  const catchUpMs = performance.now() - catchUpFrom;
  const catchUp = {
    ...catchUpFigures(backlog, catchUpMs, loopDelay),
    storeReads: storeReads.calls,
    eventsReadPerEvent: round(storeReads.events / Math.max(1, backlog)),
  };
  report.readModelsCatchUp = catchUp;
  console.log(
    'read models catching up on the %s events so far: %s ms (%s events/s), %s store reads (%s events read per event), ' +
      "this process's event loop delayed p99 %s ms, max %s ms",
    catchUp.events,
    catchUp.ms,
    catchUp.eventsPerSec,
    catchUp.storeReads,
    catchUp.eventsReadPerEvent,
    catchUp.loopDelayP99Ms,
    catchUp.loopDelayMaxMs,
  );

  console.log('ledger with every read model following in this process: place bet + settle (2 commands per iteration)');
  const commands = [];
  const perCommand: { concurrency: number; placeP50Ms: number; settleP50Ms: number; rawInsertP50Ms: number | undefined }[] = [];
  const lag: number[] = [];
  for (const c of LEVELS) {
    const blocks = [];
    for (let block = 1; block <= BLOCKS; block += 1) {
      let sampling = 0;
      // Projection lag: from the append being acknowledged to the read models having applied it.
      const r = await pairs(c, {
        onPair: () => {
          if ((sampling += 1) % 25 === 0) sampleLag(lag);
        },
        quiet: () => projector.waitFor(ledger.internals.handler.lastPosition()),
        profile: block === 1 ? 'in-process' : undefined,
      });
      blocks.push(r);
      const each = { concurrency: c, placeP50Ms: r.placeP50Ms, settleP50Ms: r.settleP50Ms, rawInsertP50Ms: r.rawAtC?.p50Ms };
      perCommand.push(each);
      commands.push({
        ...blockFigures(block, c, r),
        placeP50Ms: each.placeP50Ms,
        settleP50Ms: each.settleP50Ms,
        note: 'opsPerSec counts commands; p50/p99 are per place+settle pair',
      });
      printRate(c, r);
      console.log(
        '        p50 per command: place bet %s ms, settle %s ms; raw INSERT p50 at c=%d: %s ms; %s (read models included); ' +
          'event loop delayed p99 %s ms, max %s ms',
        each.placeP50Ms,
        each.settleP50Ms,
        c,
        r.rawAtC?.p50Ms ?? '?',
        cpuLine(r),
        r.loopDelayP99Ms,
        r.loopDelayMaxMs,
      );
    }
    if (BLOCKS > 1) spreads.inProcess.push(spreadOf(c, blocks));
  }
  if (BLOCKS > 1) report.blockSpreads = spreads;
  /** Prints and returns p50/p99 of each read model's lag samples. */
  const lagTable = (label: string) => {
    const out: Record<string, { p50Ms: number; p99Ms: number; samples: number }> = {};
    for (const [name, samples] of lagPerModel) {
      const s = [...samples].sort((a, b) => a - b);
      out[name] = { p50Ms: round(percentile(s, 50)), p99Ms: round(percentile(s, 99)), samples: s.length };
    }
    console.log(
      'lag per read model at %s: %s',
      label,
      Object.entries(out)
        .map(([n, v]) => `${n} p50 ${v.p50Ms} p99 ${v.p99Ms}`)
        .join('; '),
    );
    return out;
  };
  const catchUpStart = performance.now();
  await projector.waitFor(ledger.internals.handler.lastPosition());
  report.projectorCatchUpMs = round(performance.now() - catchUpStart);
  await allSamplesIn();
  report.projectorBatches = {
    count: batches.length,
    avgEvents: round(batches.reduce((a, b) => a + b, 0) / Math.max(batches.length, 1), 1),
    max: Math.max(...batches),
  };
  console.log(
    'projector: %d batches (each group of read models counts its own), avg %d events, caught up %d ms after the load',
    batches.length,
    (report.projectorBatches as { avgEvents: number }).avgEvents,
    report.projectorCatchUpMs,
  );
  lag.sort((a, b) => a - b);
  report.ledgerCommands = commands;
  glance.push({ row: 'every read model on the same thread', blocks: commands });
  report.perCommandP50 = perCommand;
  report.projectionLagAtSaturation = { samples: lag.length, p50Ms: round(percentile(lag, 50)), p99Ms: round(percentile(lag, 99)) };
  console.log(
    'projection lag at saturation (all read models): p50 %d ms  p99 %d ms (%d samples)',
    round(percentile(lag, 50)),
    round(percentile(lag, 99)),
    lag.length,
  );
  report.lagPerReadModelAtSaturation = lagTable('saturation');

  const steady = { pool, report, ledger, placeBet, waiter, lagPerModel, batches, batchTimes, sampleLag, allSamplesIn, lagTable };
  // The aim's load: half the raw Node insert rate. Then half the ledger's own best rate, a load it can carry with room to spare.
  const bestRawRate = Math.max(...raw.map((r) => r.opsPerSec));
  await steadyPhase(steady, Number(process.env.BENCH_STEADY_RATE ?? Math.round(bestRawRate / 2)), 'half the raw insert rate', 'steadyLoad');
  await steadyPhase(
    steady,
    Math.round(Math.max(...commands.map((r) => r.opsPerSec)) / 2),
    "half the ledger's own best rate",
    'steadyLoadHalfLedger',
  );

  // What each read model costs: time in its statements per event handed to it, over the whole run.
  report.projectionCosts = projector
    .costs()
    .map((c) => ({ ...c, ms: round(c.ms), usPerEvent: round(c.events > 0 ? (c.ms * 1000) / c.events : 0, 1) }));
  console.log('projection costs (whole run; time in its statements / events it handled):');
  for (const c of report.projectionCosts as { name: string; events: number; statements: number; ms: number; usPerEvent: number }[]) {
    console.log('  %s %d events  %d statements  %d ms  %d us/event', c.name.padEnd(22), c.events, c.statements, c.ms, c.usPerEvent);
  }

  const bestRaw = Math.max(...raw.map((r) => r.opsPerSec));
  const bestLedger = Math.max(...commands.map((r) => r.opsPerSec));
  report.summary = { bestRawInsertsPerSec: bestRaw, bestLedgerCommandsPerSec: bestLedger, ratio: round(bestLedger / bestRaw) };
  console.log('summary: ledger %d commands/s = %d x raw Node inserts (%d/s)', bestLedger, round(bestLedger / bestRaw), bestRaw);
  await projector.stop();
};
