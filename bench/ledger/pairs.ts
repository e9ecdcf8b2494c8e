/** The ledger under bench: funded wallets, and place bet + settle pairs timed beside the raw INSERT. */
import { isLeft } from 'fp-ts/lib/Either.js';
import { createLedger } from '../../src/commands/ledger.js';
import { createLimits } from '../../src/commands/limits.js';
import { LIMIT_WINDOWS } from '../../src/domain/limits/gambling-limits.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { drive } from '../lib/drive.js';
import { game } from '../lib/game.js';
import { profiled } from '../lib/profile.js';
import { percentile, round } from '../lib/stats.js';
import type { Baselines } from './baselines.js';
import type { LedgerBench } from './context.js';
import { besideLine } from './figures.js';
import { SECONDS, WALLETS } from './settings.js';

export type PairsOptions = Readonly<{
  /** With BENCH_PROFILE_DIR set, the name of this row's CPU profile. */
  profile?: string;
  /** Called after each place + settle pair. */
  onPair?: () => void;
  /** Resolves once the followers are idle, so that the raw INSERT beside the row does not compete with them. */
  quiet?: () => Promise<void>;
  seconds?: number;
}>;

export type RigOptions = Readonly<{
  /** The bet guard in the append (ban, self-exclusion, bet limit, deposit and loss limits), as the service runs it. */
  guard?: boolean;
  /** Deposit and loss limits set on every wallet (high enough never to refuse), so the guard compares each bet with them. */
  limits?: boolean;
  /** The first wallet's user id (two rigs in one run use wallets apart). */
  firstUser?: number;
}>;

export const startLedger = async ({ pool, keysPool }: LedgerBench, { raw, rawInserts }: Baselines, options: RigOptions = {}) => {
  // The ledger: place bet + settle through createLedger (validation, keys, decide, group commit).
  const store = createPostgresEventStore({ pool, pollIntervalMs: 100 });
  const first = options.firstUser ?? 1;
  const limits = options.guard || options.limits ? createLimits({ store, pool }) : undefined;
  const ledger = createLedger({ store, pool, keysPool, ...(limits ? { betGuard: limits.betGuard } : {}) });
  if (limits && options.limits) {
    console.log('setting deposit and loss limits on %d wallets...', WALLETS);
    for (let u = first; u < first + WALLETS; u += 50) {
      await Promise.all(
        Array.from({ length: 50 }, async (_, k) => {
          for (const window of LIMIT_WINDOWS) {
            await limits.setGamblingLimit(u + k, { kind: 'loss', window, value: '1000000000' }, 0);
            await limits.setGamblingLimit(u + k, { kind: 'deposit', window, value: '1000000000000' }, 0);
          }
        }),
      );
    }
  }
  console.log('funding %d wallets...', WALLETS);
  for (let u = first; u < first + WALLETS; u += 100) {
    await Promise.all(
      Array.from({ length: 100 }, async (_, k) => {
        const d = await ledger.requestDeposit({
          externalId: `fund-${u + k}`,
          userId: u + k,
          providerId: 'TEST',
          networkId: 'ETH',
          currencyId: 'USDT',
          amount: '1000000',
        });
        if (isLeft(d)) throw new Error(JSON.stringify(d.left));
        await ledger.completeDeposit(d.right.deposit.id, {});
      }),
    );
  }

  /** A bet of 1.5 USDT in round `id`, as every load of this bench places it. */
  const placeBet = (id: string, userId: number) =>
    ledger.placeBet({ id, userId, roundId: id, gameId: 7, gameIdentity: game, currencyId: 'USDT', amount: '1.5' });
  let betSeq = 0;
  /** Bet ids apart per rig: a bet id names one wallet's bet. */
  const idPrefix = first === 1 ? '' : `w${first}-`;
  /**
   * One place bet + settle pair per iteration, on `c` loops; p50 of each command. On this kind of machine the raw INSERT's
   * rate moves by 2x within minutes, so the same INSERT also runs for half the time right before and right after (once
   * `quiet` says the followers are idle): the ratio to the mean of those two is the one a drift does not skew.
   */
  const pairs = async (
    c: number,
    { onPair = () => undefined, quiet = async () => undefined, seconds = SECONDS, profile }: PairsOptions = {},
  ) => {
    await quiet();
    const rawBefore = await rawInserts(c, seconds / 2);
    const placeMs: number[] = [];
    const settleMs: number[] = [];
    const loops = () =>
      drive(c, seconds, async (client) => {
        const userId = first + ((client * 7919 + betSeq) % WALLETS);
        const id = `${idPrefix}b${(betSeq += 1)}`;
        const t0 = performance.now();
        const placed = await placeBet(id, userId);
        if (isLeft(placed)) throw new Error(JSON.stringify(placed.left));
        const t1 = performance.now();
        const settled = await ledger.settleBet(id, { payout: client % 2 === 0 ? '3' : '0' });
        if (isLeft(settled)) throw new Error(JSON.stringify(settled.left));
        placeMs.push(t1 - t0);
        settleMs.push(performance.now() - t1);
        onPair();
        return 2;
      });
    const r = await profiled(profile && `${profile}-c${c}`, loops);
    await quiet();
    const rawAfter = await rawInserts(c, seconds / 2);
    placeMs.sort((a, b) => a - b);
    settleMs.sort((a, b) => a - b);
    const rawAtC = raw.find((x) => x.concurrency === c);
    const rawBeside = round((rawBefore.opsPerSec + rawAfter.opsPerSec) / 2, 0);
    return {
      ...r,
      ratio: rawAtC ? round(r.opsPerSec / rawAtC.opsPerSec) : undefined,
      rawAtC,
      rawBeside,
      ratioBeside: round(r.opsPerSec / rawBeside),
      placeP50Ms: round(percentile(placeMs, 50), 3),
      settleP50Ms: round(percentile(settleMs, 50), 3),
    };
  };
  /** A row's first line: its rate, its ratios to the raw INSERT and its pair latencies. */
  const printRate = (c: number, r: Awaited<ReturnType<typeof pairs>>): void =>
    console.log(
      '  c=%d  %d commands/s (%sx raw Node inserts at c=%d: %s/s; %s)  pair p50 %s ms  p99 %s ms',
      c,
      r.opsPerSec,
      r.ratio ?? '?',
      c,
      r.rawAtC?.opsPerSec ?? '?',
      besideLine(r),
      r.p50Ms,
      r.p99Ms,
    );
  /** What every ledger row keeps of a block: its rate, its ratios to the raw INSERT, its pair latencies and CPU. */
  const blockFigures = (block: number, c: number, r: Awaited<ReturnType<typeof pairs>>) => ({
    block,
    concurrency: c,
    opsPerSec: r.opsPerSec,
    ratioToRawInsertsAtSameConcurrency: r.ratio,
    rawInsertsBesidePerSec: r.rawBeside,
    ratioToRawInsertsBeside: r.ratioBeside,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    nodeCpuUsPerCommand: r.nodeCpuUsPerOp,
    postgresCpuUsPerCommand: r.postgresCpuUsPerOp,
    loopDelayP99Ms: r.loopDelayP99Ms,
    loopDelayMaxMs: r.loopDelayMaxMs,
  });
  return { store, ledger, placeBet, pairs, printRate, blockFigures };
};
export type LedgerRig = Awaited<ReturnType<typeof startLedger>>;
export type PairsResult = Awaited<ReturnType<LedgerRig['pairs']>>;
