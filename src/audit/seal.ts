import type pg from 'pg';
import type { EventStore } from '../infra/event-store/event-store.port.js';

/** One place where the stored ledger and its seals disagree. */
export type SealDifference = Readonly<{
  kind: 'edited' | 'deleted' | 'inserted' | 'chain-broken' | 'checkpoint-forged' | 'unsealed';
  /** Where: stream id and revision, and/or global position ("commit/prepare"). */
  streamId?: string;
  revision?: string;
  position?: string;
  detail: string;
}>;

export type SealerDeps = Readonly<{
  store: EventStore;
  pool: pg.Pool;
  /** HMAC key of the checkpoints (32 bytes). */
  key: Buffer;
  checkpointEvery: number;
  logger?: { warn(obj: object, msg?: string): void };
}>;

export type Sealer = Readonly<{ stop: () => Promise<void>; /** Resolves once everything appended so far is sealed. */ caughtUp: () => Promise<void> }>;

/** Follows the event store and seals every event into the per-stream and global hash chains (issue 7). */
export const startSealer = (_deps: SealerDeps): Sealer => {
  throw new Error('not implemented yet (issue 7)');
};

export type VerifySealsDeps = Readonly<{ store: EventStore; pool: pg.Pool; key: Buffer; onProgress?: (done: number, total: number) => void }>;

/** Recomputes every chain from the stored events and lists each difference (empty = intact). */
export const verifySeals = async (_deps: VerifySealsDeps): Promise<SealDifference[]> => {
  throw new Error('not implemented yet (issue 7)');
};
