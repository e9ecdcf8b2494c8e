/** How bench:ledger puts its rows' figures side by side: ratios to the raw INSERT, spreads over blocks, catch-ups. */
import type { IntervalHistogram } from 'node:perf_hooks';
import { round, spread, type Spread } from '../lib/stats.js';
import { LEVELS } from './settings.js';

/** A catch-up's size, time and rate, and how long the event loop beside it was held up. */
export const catchUpFigures = (events: number, ms: number, loop: IntervalHistogram) => ({
  events,
  ms: round(ms),
  eventsPerSec: Math.round((events * 1000) / ms),
  loopDelayP99Ms: round(loop.percentile(99) / 1e6),
  loopDelayMaxMs: round(loop.max / 1e6),
});

/** "0.52x the raw INSERT run beside it: 4,800/s" for a pairs() result. */
export const besideLine = (r: { ratioBeside: number; rawBeside: number }): string =>
  `${r.ratioBeside}x the raw INSERT run beside it: ${r.rawBeside}/s`;

/** One ledger row's blocks, for the closing lines that put every row side by side. */
export type RowBlocks = Readonly<{ row: string; blocks: readonly { concurrency: number; ratioToRawInsertsBeside: number }[] }>;
/** Per concurrency, each row's median (range) ratio to the raw INSERT run beside its blocks: the figures to quote together. */
export const atAGlance = (rows: readonly RowBlocks[]) =>
  LEVELS.map((c) => ({
    concurrency: c,
    rows: rows.map(({ row, blocks }) => ({
      row,
      ratioBeside: spread(blocks.filter((b) => b.concurrency === c).map((b) => b.ratioToRawInsertsBeside)),
    })),
  }));

export type BlockSpread = Readonly<{ concurrency: number; blocks: number; ratioBeside: Spread; commandsPerSec: Spread }>;
/** Prints and returns the median and range, over a row's blocks at one concurrency, of the ratio to the raw INSERT beside each. */
export const spreadOf = (c: number, blocks: readonly { ratioBeside: number; opsPerSec: number }[]): BlockSpread => {
  const out = {
    concurrency: c,
    blocks: blocks.length,
    ratioBeside: spread(blocks.map((b) => b.ratioBeside)),
    commandsPerSec: spread(blocks.map((b) => b.opsPerSec)),
  };
  console.log(
    '  c=%d  over %d blocks: %sx the raw INSERT run beside each, median (%s-%s); %d commands/s median (%d-%d)',
    c,
    out.blocks,
    out.ratioBeside.median,
    out.ratioBeside.min,
    out.ratioBeside.max,
    out.commandsPerSec.median,
    out.commandsPerSec.min,
    out.commandsPerSec.max,
  );
  return out;
};

/** The closing lines: per concurrency, every row's median (range) ratio to the raw INSERT run beside its blocks. */
export const printAtAGlance = (glance: ReturnType<typeof atAGlance>): void => {
  for (const { concurrency, rows } of glance) {
    const each = rows.map(({ row, ratioBeside: r }) => `${row} ${r.median}x (${r.min}-${r.max})`);
    console.log('at a glance, c=%d, median (range) ratio to the raw INSERT run beside each block: %s', concurrency, each.join('; '));
  }
};
