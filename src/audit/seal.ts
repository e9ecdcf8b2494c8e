import type pg from 'pg';
import {
  comparePositions, formatPosition, START, type Position, type RecordedEvent, type Subscription,
} from '../infra/event-store/event-store.port.js';
import { assertSealKey, chainHash, eventHash, GENESIS } from './seal.hash.js';
import {
  checkpointOf, insertCheckpoints, insertSeals, lastCheckpointCount, readHead, SEAL_LOCK_SQL, streamHeads,
  type SealCheckpoint, type SealHead, type SealRow,
} from './seal.store.js';
import type { Sealer, SealerDeps } from './seal.types.js';

export type { SealAnchor, SealDifference, Sealer, SealerDeps, SealReport, VerifySealsDeps } from './seal.types.js';
export type { SealCheckpoint } from './seal.store.js';
export { inspectSeals, verifySeals } from './seal.verify.js';

/**
 * Runs `fn` in a transaction holding the seal lock. Asynchronous commit is safe: a batch lost in a crash
 * is sealed again from the durable events, and sealing is deterministic (same hashes, same checkpoint MACs).
 */
const withSealLock = async <T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
  const client = await pool.connect();
  let destroy = false;
  const onConnectionError = (): void => { destroy = true; };
  client.on('error', onConnectionError);
  try {
    await client.query('BEGIN; SET LOCAL synchronous_commit TO off');
    await client.query(SEAL_LOCK_SQL);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => { destroy = true; });
    throw error;
  } finally {
    client.off('error', onConnectionError);
    client.release(destroy);
  }
};

/** The stored head is behind where this sealer's subscription started: seals were removed. Restart from it. */
class HeadBehind extends Error {
  override readonly name = 'HeadBehind';
}

type Sealed = Readonly<{ head: SealHead; sealed: number; checkpoints: SealCheckpoint[] }>;

/**
 * Seals one batch under the lock: re-reads the head (another process may have sealed part of the batch),
 * links each new event to its stream's last seal and to the global chain, and writes the seals, the
 * checkpoints at every multiple of `every` and (with them) the new head, in one transaction.
 */
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
    const checkpoints = await insertCheckpoints(client, seals.filter((s) => s.seq % every === 0n).map((s) => checkpointOf(key, s)));
    return { head: seals.at(-1)!, sealed: seals.length, checkpoints };
  });

/** Checkpoints the head when no checkpoint covers it yet (a quiet ledger gets anchored too). */
const checkpointHead = (pool: pg.Pool, key: Buffer): Promise<SealCheckpoint[]> =>
  withSealLock(pool, async (client) => {
    const head = await readHead(client);
    if (head.seq === 0n || (await lastCheckpointCount(client)) >= head.seq) return [];
    return insertCheckpoints(client, [checkpointOf(key, head)]);
  });

/**
 * Follows the event store from the last seal and seals every event into its stream's hash chain and the
 * global one (issue 7), off the append path: group commit stays as it is, and it works the same for the
 * KurrentDB store. Each batch commits with its checkpoints; a crash neither loses nor doubles a seal.
 * On any failure: back off and restart from the stored head. Several sealers may run: they take turns.
 */
export const startSealer = (deps: SealerDeps): Sealer => {
  assertSealKey(deps.key);
  if (!Number.isSafeInteger(deps.checkpointEvery) || deps.checkpointEvery < 1) throw new TypeError('checkpointEvery: must be a positive integer');
  const { store, pool, key, batchSize = 2000, checkpointIntervalMs = 10_000 } = deps;
  const every = BigInt(deps.checkpointEvery);
  const firstDelay = deps.retryDelayMs ?? 100;
  const stopping = new AbortController();
  let sealed: Position | undefined;
  let delay = firstDelay;
  let subscription: Subscription | undefined;
  const waiters = new Set<{ position: Position; resolve: () => void; reject: (e: Error) => void }>();

  const advance = (position: Position): void => {
    sealed = position;
    for (const w of waiters) {
      if (comparePositions(position, w.position) >= 0) {
        waiters.delete(w);
        w.resolve();
      }
    }
  };

  const shipped = (checkpoints: readonly SealCheckpoint[]): void => {
    for (const c of checkpoints) deps.onCheckpoint?.(c);
  };

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const onAbort = (): void => { clearTimeout(timer); resolve(); };
      const timer = setTimeout(() => { stopping.signal.removeEventListener('abort', onAbort); resolve(); }, ms);
      stopping.signal.addEventListener('abort', onAbort, { once: true });
    });

  const runOnce = async (): Promise<void> => {
    let from = (await withSealLock(pool, readHead)).position;
    advance(from);
    subscription = store.subscribe({
      after: from,
      batchSize,
      signal: stopping.signal,
      onError: () => undefined,
      onEvents: async (events) => {
        if (events.length === 0) return;
        const result = await sealBatch(pool, key, every, from, events);
        from = events.at(-1)!.position;
        advance(from);
        delay = firstDelay;
        shipped(result.checkpoints);
        if (result.sealed > 0) deps.onBatch?.({ sealed: result.sealed, sealedCount: result.head.seq, position: result.head.position });
      },
    });
    await subscription.done;
  };

  const loop = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      try {
        await runOnce();
      } catch (error) {
        if (stopping.signal.aborted) break;
        deps.onFailure?.(error);
        deps.logger?.warn({ err: error, retryInMs: delay }, error instanceof HeadBehind ? 'ledger sealer: seals were removed; sealing again from the stored head' : 'ledger sealer restarting from the stored head');
        await sleep(delay);
        delay = Math.min(delay * 2, 5_000);
      }
    }
    for (const w of waiters) w.reject(new Error('ledger sealer stopped'));
    waiters.clear();
  };

  let ticking: Promise<void> = Promise.resolve();
  const tick = (): Promise<void> =>
    (ticking = ticking.then(() => checkpointHead(pool, key)).then(shipped, (error: unknown) => {
      deps.logger?.warn({ err: error }, 'ledger sealer: checkpoint failed');
    }));
  const ticker = setInterval(() => void tick(), checkpointIntervalMs);
  ticker.unref();
  const done = loop();

  return {
    stop: async () => {
      clearInterval(ticker);
      stopping.abort();
      await subscription?.stop();
      await done;
      // A clean stop anchors the tail: everything sealed so far is covered by a checkpoint.
      await tick();
    },
    caughtUp: async () => {
      const target = await store.headPosition();
      if (comparePositions(target, START) <= 0 || (sealed && comparePositions(sealed, target) >= 0)) return;
      if (stopping.signal.aborted) throw new Error('ledger sealer stopped');
      await new Promise<void>((resolve, reject) => waiters.add({ position: target, resolve, reject }));
    },
  };
};
