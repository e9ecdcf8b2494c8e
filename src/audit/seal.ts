import type pg from 'pg';
import { comparePositions, formatPosition, START, type Position, type RecordedEvent } from '../infra/event-store/event-store.port.js';
import { sleep, startFollowLoop } from '../infra/follow/follow-loop.js';
import { withLockedTransaction } from '../infra/follow/locked-transaction.js';
import { assertSealKey, chainHash, eventHash, GENESIS } from './seal.hash.js';
import {
  checkpointOf,
  insertCheckpoints,
  insertSeals,
  lastCheckpointCount,
  readHead,
  SEAL_LOCK_SQL,
  streamHeads,
  type SealCheckpoint,
  type SealHead,
  type SealRow,
} from './seal.store.js';
import type { Sealer, SealerDeps } from './seal.types.js';

export type { SealAnchor, SealDifference, Sealer, SealerDeps, SealReport, VerifySealsDeps } from './seal.types.js';
export type { SealCheckpoint } from './seal.store.js';
export { inspectSeals, verifySeals } from './seal.verify.js';

const withSealLock = <T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> =>
  withLockedTransaction(pool, SEAL_LOCK_SQL, fn);

/** The stored head is behind where this sealer's subscription started: seals were removed. Restart from it. */
class HeadBehind extends Error {
  override readonly name = 'HeadBehind';
}

type Sealed = Readonly<{ head: SealHead; sealed: number; checkpoints: SealCheckpoint[] }>;

/** Re-reads the head under the lock: another process may have sealed part of the batch. */
const sealBatch = (pool: pg.Pool, key: Buffer, every: bigint, from: Position, events: readonly RecordedEvent[]): Promise<Sealed> =>
  withSealLock(pool, async (client) => {
    const head = await readHead(client);
    if (comparePositions(head.position, from) < 0) {
      throw new HeadBehind(`sealed head ${formatPosition(head.position)} is behind ${formatPosition(from)}: seals were removed`);
    }
    const fresh = events.filter((e) => comparePositions(e.position, head.position) > 0);
    if (fresh.length === 0) return { head, sealed: 0, checkpoints: [] };
    const last = await streamHeads(client, [...new Set(fresh.map((e) => e.streamId))]);
    let chain = head.chainHash;
    let seq = head.seq;
    const seals: SealRow[] = fresh.map((e) => {
      const prevHash = last.get(e.streamId) ?? GENESIS;
      const hash = eventHash(prevHash, e);
      chain = chainHash(chain, hash);
      seq += 1n;
      last.set(e.streamId, hash);
      return { seq, position: e.position, eventId: e.id, streamId: e.streamId, revision: e.revision, prevHash, hash, chainHash: chain };
    });
    await insertSeals(client, seals);
    const checkpoints = await insertCheckpoints(
      client,
      seals.filter((s) => s.seq % every === 0n).map((s) => checkpointOf(key, s)),
    );
    return { head: seals.at(-1)!, sealed: seals.length, checkpoints };
  });

/** Checkpoints the head when no checkpoint covers it yet (a quiet ledger gets anchored too). */
const checkpointHead = (pool: pg.Pool, key: Buffer): Promise<SealCheckpoint[]> =>
  withSealLock(pool, async (client) => {
    const head = await readHead(client);
    if (head.seq === 0n || (await lastCheckpointCount(client)) >= head.seq) return [];
    return insertCheckpoints(client, [checkpointOf(key, head)]);
  });

/** Seals off the append path (group commit untouched, works for KurrentDB); a crash neither loses nor doubles a seal. */
export const startSealer = (deps: SealerDeps): Sealer => {
  assertSealKey(deps.key);
  if (!Number.isSafeInteger(deps.checkpointEvery) || deps.checkpointEvery < 1)
    throw new TypeError('checkpointEvery: must be a positive integer');
  const { store, pool, key, batchSize = 2000, checkpointIntervalMs = 10_000, paceMs = 100 } = deps;
  const every = BigInt(deps.checkpointEvery);
  const shipped = (checkpoints: readonly SealCheckpoint[]): void => {
    for (const c of checkpoints) deps.onCheckpoint?.(c);
  };
  const logger = deps.logger;

  const follow = startFollowLoop({
    name: 'ledger sealer',
    retryDelayMs: deps.retryDelayMs ?? 100,
    onFailure: deps.onFailure,
    planned: (error) => error instanceof HeadBehind,
    ...(logger ? { logger: { warn: (o, m) => logger.warn(o, m), error: (o, m) => logger.warn(o, m) } } : {}),
    run: async ({ signal, advance, succeeded }) => {
      let from = (await withSealLock(pool, readHead)).position;
      advance(from);
      const subscription = store.subscribe({
        after: from,
        batchSize,
        signal,
        onError: () => undefined,
        onEvents: async (events) => {
          if (events.length === 0) return;
          const result = await sealBatch(pool, key, every, from, events);
          from = events.at(-1)!.position;
          advance(from);
          succeeded();
          shipped(result.checkpoints);
          if (result.sealed > 0) deps.onBatch?.({ sealed: result.sealed, sealedCount: result.head.seq, position: result.head.position });
          // Seals are evidence, not answers: waiting lets the next batch gather events instead of costing a transaction each.
          if (events.length < batchSize && paceMs > 0) await sleep(paceMs, signal);
        },
      });
      await subscription.done;
    },
  });

  let ticking: Promise<void> = Promise.resolve();
  const tick = (): Promise<void> =>
    (ticking = ticking
      .then(() => checkpointHead(pool, key))
      .then(shipped, (error: unknown) => {
        deps.logger?.warn({ err: error }, 'ledger sealer: checkpoint failed');
      }));
  const ticker = setInterval(() => void tick(), checkpointIntervalMs);
  ticker.unref();

  return {
    stop: async () => {
      clearInterval(ticker);
      await follow.stop();
      // A clean stop anchors the tail: everything sealed so far is covered by a checkpoint.
      await tick();
    },
    caughtUp: async () => {
      const target = await store.headPosition();
      if (comparePositions(target, START) <= 0) return;
      await follow.waitFor(target);
    },
  };
};
