/** bench:ledger's first row: the command path alone, and the rounds an append and the Node work make at c=1 and c=4. */
import { cpuLine } from '../lib/drive.js';
import { round } from '../lib/stats.js';
import type { Baselines } from './baselines.js';
import type { LedgerBench } from './context.js';
import { besideLine, spreadOf, type BlockSpread } from './figures.js';
import type { LedgerRig } from './pairs.js';
import { BLOCKS, LEVELS } from './settings.js';

export const commandPathAlone = async (
  { report, glance }: LedgerBench,
  { raw, appendCost }: Baselines,
  { pairs, blockFigures }: LedgerRig,
): Promise<BlockSpread[]> => {
  // Untimed: the first commands compile the command path (JIT) and the server's plans; the first row would pay for them.
  await pairs(4, { seconds: 2 });
  // The command path on its own: what the append costs next to the raw INSERT, with no read model following.
  console.log('ledger, command path alone (no read model following): place bet + settle (2 commands per iteration)');
  const alone = [];
  const aloneSpreads: BlockSpread[] = [];
  for (const c of LEVELS) {
    const blocks = [];
    for (let block = 1; block <= BLOCKS; block += 1) {
      const r = await pairs(c, { profile: block === 1 ? 'alone' : undefined });
      blocks.push(r);
      alone.push({ ...blockFigures(block, c, r), placeP50Ms: r.placeP50Ms, settleP50Ms: r.settleP50Ms, rawInsertP50Ms: r.rawAtC?.p50Ms });
      console.log(
        '  c=%d  %d commands/s (%sx raw Node inserts at c=%d: %s/s; %s)  pair p50 %s ms; p50 per command: place bet %s ms, settle %s ms; raw INSERT p50 %s ms; %s',
        c,
        r.opsPerSec,
        r.ratio ?? '?',
        c,
        r.rawAtC?.opsPerSec ?? '?',
        besideLine(r),
        r.p50Ms,
        r.placeP50Ms,
        r.settleP50Ms,
        r.rawAtC?.p50Ms ?? '?',
        cpuLine(r),
      );
    }
    if (BLOCKS > 1) aloneSpreads.push(spreadOf(c, blocks));
  }
  report.ledgerCommandsAlone = alone;
  glance.push({ row: 'the command path alone', blocks: alone });
  // The closed loops move in rounds: each loop's command waits in the same append, then the answers and the next commands
  // are worked out one after another on one thread. So a round of c commands costs about one append of c plus c times the
  // Node work of a command, and neither overlaps the other.
  const appendOf = new Map([
    [1, appendCost.exact1Ms],
    [4, appendCost.exact4Ms],
  ]);
  const rounds = alone.flatMap((a) => {
    if (a.block !== 1) return [];
    const appendMs = appendOf.get(a.concurrency);
    if (appendMs === undefined) return [];
    const nodeMs = round((a.concurrency * a.nodeCpuUsPerCommand) / 1000, 3);
    const roundMs = round(appendMs + nodeMs, 3);
    const ceiling = round((a.concurrency * 1000) / roundMs, 0);
    const rawAtC = raw.find((x) => x.concurrency === a.concurrency);
    return [
      { concurrency: a.concurrency, appendMs, nodeMs, roundMs, ceiling, ratio: rawAtC ? round(ceiling / rawAtC.opsPerSec) : undefined },
    ];
  });
  for (const r of rounds) {
    console.log(
      '  c=%d  a round: one append of %d at the server %s ms + Node work of %d commands %s ms = %s ms, at most %d commands/s (%sx raw)',
      r.concurrency,
      r.concurrency,
      r.appendMs,
      r.concurrency,
      r.nodeMs,
      r.roundMs,
      r.ceiling,
      r.ratio ?? '?',
    );
  }
  report.commandRounds = rounds;
  return aloneSpreads;
};
