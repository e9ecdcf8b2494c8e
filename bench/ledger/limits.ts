/**
 * BENCH_LIMITS=compare: the command path alone with deposit and loss limits on every wallet, against the same path with
 * none set, both with the bet guard in the append as the service runs it, in one run: at each concurrency the two ledgers take turns (off, on, off, on ...), so a
 * drift of the machine's speed falls on both. Each ledger has wallets of its own.
 */
import { round } from '../lib/stats.js';
import type { Baselines } from './baselines.js';
import type { LedgerBench } from './context.js';
import { startLedger, type PairsResult } from './pairs.js';
import { BLOCKS, LEVELS, WALLETS } from './settings.js';

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export const limitsCompared = async (bench: LedgerBench, baselines: Baselines) => {
  const off = await startLedger(bench, baselines, { guard: true });
  const on = await startLedger(bench, baselines, { guard: true, limits: true, firstUser: 1 + WALLETS });
  await off.pairs(4, { seconds: 2 });
  await on.pairs(4, { seconds: 2 });
  const turns = Math.max(2, BLOCKS);
  console.log('ledger, command path alone, limits off and on in turns (%d blocks each): place bet + settle', turns);
  const rows = [];
  for (const c of LEVELS) {
    const offRuns: PairsResult[] = [];
    const onRuns: PairsResult[] = [];
    for (let t = 0; t < turns; t += 1) {
      offRuns.push(await off.pairs(c));
      onRuns.push(await on.pairs(c));
    }
    const row = {
      concurrency: c,
      offCommandsPerSec: offRuns.map((r) => r.opsPerSec),
      onCommandsPerSec: onRuns.map((r) => r.opsPerSec),
      offRatioBeside: offRuns.map((r) => r.ratioBeside),
      onRatioBeside: onRuns.map((r) => r.ratioBeside),
      offPlaceP50Ms: median(offRuns.map((r) => r.placeP50Ms)),
      onPlaceP50Ms: median(onRuns.map((r) => r.placeP50Ms)),
      onToOff: round(median(onRuns.map((r) => r.opsPerSec)) / median(offRuns.map((r) => r.opsPerSec))),
      onToOffBeside: round(median(onRuns.map((r) => r.ratioBeside)) / median(offRuns.map((r) => r.ratioBeside))),
    };
    rows.push(row);
    console.log(
      '  c=%d  off %s commands/s, on %s commands/s: on/off %s (beside the raw INSERT: %s); place p50 off %s ms, on %s ms',
      c,
      row.offCommandsPerSec.join(' / '),
      row.onCommandsPerSec.join(' / '),
      row.onToOff,
      row.onToOffBeside,
      row.offPlaceP50Ms,
      row.onPlaceP50Ms,
    );
  }
  bench.report.limitsCompared = rows;
  await off.store.close();
  await on.store.close();
};
