import type pg from 'pg';
import type { EventStore, Position } from '../infra/event-store/event-store.port.js';
import type { SealCheckpoint } from './seal.store.js';

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
  /** Events per batch (one transaction each). Default 2000. */
  batchSize?: number;
  /** The head is checkpointed at least this often when it moved (a quiet ledger is anchored too). Default 10 s. */
  checkpointIntervalMs?: number;
  /** Backoff after a failure: first delay, doubling up to 5 s. Default 100 ms. */
  retryDelayMs?: number;
  /** Each checkpoint once committed: ship it off-box (log line, another system) to anchor the chain outside this database. */
  onCheckpoint?: (checkpoint: SealCheckpoint) => void;
  /** After each committed batch (tests, metrics). */
  onBatch?: (info: Readonly<{ sealed: number; sealedCount: bigint; position: Position }>) => void;
  /** Each failure, before the sealer backs off and restarts from the stored head. */
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
  /** The configured checkpoint interval: when more than twice this many seals follow the last valid checkpoint, checkpoints were removed
   * (reported as 'checkpoint-forged'). Unset: not checked. */
  checkpointEvery?: number;
  anchors?: readonly SealAnchor[];
  batchSize?: number;
}>;

export type SealReport = Readonly<{
  /** Empty when the ledger is intact. */
  differences: SealDifference[];
  /** Events read (up to the store's head when the check started). */
  events: number;
  /** Seals checked (the sealed count when the check started) and the last one's position. */
  sealed: bigint;
  sealedHead: string | undefined;
  /** Events after the sealed head: appended but not sealed yet, including committed events not yet readable in global order (an older
   * transaction is still open; those are still checked against sealed revisions). Not a difference; the sealer is behind (or stopped). */
  unsealed: number;
  /** Checkpoints whose MAC and chain hash both hold, and the sealed count of the last one (0n: none). */
  checkpoints: number;
  lastCheckpoint: bigint;
}>;
