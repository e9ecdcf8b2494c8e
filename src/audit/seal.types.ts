import type pg from 'pg';
import type { EventStore, Position } from '../infra/event-store/event-store.port.js';
import type { SealCheckpoint } from './seal.store.js';

export type SealDifference = Readonly<{
  kind: 'edited' | 'deleted' | 'inserted' | 'chain-broken' | 'checkpoint-forged' | 'unsealed' | 'seal-key';
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
  /** Events per batch (one transaction each). Default 2000. */
  batchSize?: number;
  /** After a batch short of `batchSize`, the next waits this long, so a busy ledger is sealed in batches. Default 100 ms. */
  paceMs?: number;
  /** The head is checkpointed at least this often when it moved (a quiet ledger is anchored too). Default 10 s. */
  checkpointIntervalMs?: number;
  /** Backoff after a failure: first delay, doubling up to 5 s. Default 100 ms. */
  retryDelayMs?: number;
  /** Each checkpoint once committed: ship it off-box (log line, another system) to anchor the chain outside this database. */
  onCheckpoint?: (checkpoint: SealCheckpoint) => void;
  onBatch?: (info: Readonly<{ sealed: number; sealedCount: bigint; position: Position }>) => void;
  onFailure?: (error: unknown) => void;
}>;

export type Sealer = Readonly<{
  stop: () => Promise<void>;
  /** Resolves once the store's head position when called (what readers can see) is sealed. */ caughtUp: () => Promise<void>;
}>;

/** A checkpoint known from outside the database (shipped off-box by `onCheckpoint`): trusted without its MAC. */
export type SealAnchor = Readonly<{ sealedCount: bigint; position: string; chainHash: string }>;

export type VerifySealsDeps = Readonly<{
  store: EventStore;
  pool: pg.Pool;
  key: Buffer;
  onProgress?: (done: number, total: number) => void;
  /** More than twice this many seals past the last valid checkpoint means checkpoints were removed. */
  checkpointEvery?: number;
  anchors?: readonly SealAnchor[];
  batchSize?: number;
}>;

export type SealReport = Readonly<{
  differences: SealDifference[];
  events: number;
  sealed: bigint;
  sealedHead: string | undefined;
  /** Appended but not sealed yet: not a difference, the sealer is behind (or stopped). */
  unsealed: number;
  checkpoints: number;
  lastCheckpoint: bigint;
}>;
