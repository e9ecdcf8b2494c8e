/** Projection lag and "command acknowledged -> visible in a consistent read" at a steady open-loop load. */
import { isLeft } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import type { createReadModelWaiter } from '../../src/projections/read-model-waiter.js';
import { percentile, round } from '../lib/stats.js';
import type { LedgerRig } from './pairs.js';
import { SECONDS, WALLETS } from './settings.js';

/** The in-process row's projector state that a steady load samples. */
export type SteadyDeps = Readonly<{
  pool: pg.Pool;
  report: Record<string, unknown>;
  ledger: LedgerRig['ledger'];
  placeBet: LedgerRig['placeBet'];
  waiter: ReturnType<typeof createReadModelWaiter>;
  lagPerModel: Map<string, number[]>;
  batches: number[];
  batchTimes: number[];
  sampleLag: (overall: number[]) => void;
  allSamplesIn: () => Promise<void>;
  lagTable: (label: string) => unknown;
}>;

/** Projection lag and ack -> consistent read at a steady open-loop load of `target` commands/s. */
export const steadyPhase = async (d: SteadyDeps, target: number, label: string, key: string): Promise<void> => {
  const { pool, report, ledger, placeBet, waiter, lagPerModel, batches, batchTimes, sampleLag, allSamplesIn, lagTable } = d;
  const steadyLag: number[] = [];
  const visible: number[] = [];
  let staleReads = 0;
  const steady = { targetCommandsPerSec: target, achievedCommandsPerSec: 0, lagP50Ms: 0, lagP99Ms: 0 };
  for (const samples of lagPerModel.values()) samples.length = 0;
  {
    const pairsPerSec = target / 2;
    const started = performance.now();
    const firstBatch = batches.length;
    const inFlight: Promise<void>[] = [];
    let pairs = 0;
    while (performance.now() - started < SECONDS * 1000) {
      const due = Math.floor(((performance.now() - started) / 1000) * pairsPerSec);
      for (; pairs < due; pairs += 1) {
        const n = pairs;
        inFlight.push(
          (async () => {
            const userId = 1 + ((n * 7919) % WALLETS);
            const id = `${key}-${n}`;
            const placed = await placeBet(id, userId);
            if (isLeft(placed)) throw new Error(JSON.stringify(placed.left));
            const settled = await ledger.settleBet(id, { payout: n % 2 === 0 ? '3' : '0' });
            if (isLeft(settled)) throw new Error(JSON.stringify(settled.left));
            if (n % 10 === 0) sampleLag(steadyLag);
            if (n % 10 === 5) {
              // Command acknowledged -> visible in a consistent read (what GET /bets does: wait for its read models, then read).
              const t0 = performance.now();
              const reached = await waiter.reach(['bets', 'users'], undefined, 2_000);
              const { rows } = await pool.query(`SELECT status FROM bets WHERE id = $1`, [id]);
              // A stale answer (the 2 s bound hit) counts as a sample of 2 s and is reported; a consistent one must show the bet.
              if (reached.stale) staleReads += 1;
              else if (rows[0]?.status !== 'SETTLED') throw new Error(`bet ${id}: a consistent read did not show it settled`);
              visible.push(performance.now() - t0);
            }
          })(),
        );
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    await Promise.all(inFlight);
    await allSamplesIn();
    const steadyBatches = batches.slice(firstBatch);
    const times = batchTimes.slice(firstBatch);
    Object.assign(steady, {
      projectorBatches: steadyBatches.length,
      avgBatchEvents: round(steadyBatches.reduce((a, b) => a + b, 0) / Math.max(1, steadyBatches.length), 1),
      avgBatchIntervalMs: round((times.at(-1)! - times[0]!) / Math.max(1, times.length - 1)),
    });
    steady.achievedCommandsPerSec = round((pairs * 2) / ((performance.now() - started) / 1000), 0);
    steadyLag.sort((a, b) => a - b);
    steady.lagP50Ms = round(percentile(steadyLag, 50));
    steady.lagP99Ms = round(percentile(steadyLag, 99));
  }
  visible.sort((a, b) => a - b);
  report[key] = {
    ...steady,
    ackToConsistentRead: {
      samples: visible.length,
      stale: staleReads,
      p50Ms: round(percentile(visible, 50)),
      p99Ms: round(percentile(visible, 99)),
    },
  };
  console.log(
    '%s: steady load %d commands/s (target %d): projection lag (all read models) p50 %d ms  p99 %d ms; %j',
    label,
    steady.achievedCommandsPerSec,
    target,
    steady.lagP50Ms,
    steady.lagP99Ms,
    steady,
  );
  console.log(
    'command acknowledged -> visible in a consistent read (bets list), at that load: p50 %d ms  p99 %d ms (%d samples, %d stale)',
    round(percentile(visible, 50)),
    round(percentile(visible, 99)),
    visible.length,
    staleReads,
  );
  report[`lagPerReadModelAt${key[0]!.toUpperCase()}${key.slice(1)}`] = lagTable(label);
};
