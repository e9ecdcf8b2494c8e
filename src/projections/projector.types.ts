import type pg from 'pg';
import { type EventStore, type Position } from '../infra/event-store/event-store.port.js';
import { type WakeSignal } from '../infra/follow/wake-signal.js';
import type { Projection } from './projection.js';

export type ProjectorLogger = {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
};

export type ProjectorOptions = Readonly<{
  store: EventStore;
  pool: pg.Pool;
  projections: readonly Projection[];
  /** Default true: each read model has its own lock and checkpoint, so a slow one never holds back the others. */
  independent?: boolean;
  batchSize?: number;
  /** A bulk replay from zero: statements marked `derived` are skipped; the caller runs each projection's `rederive` after. */
  replay?: boolean;
  /** Default 3: each batch holds a pool connection, and a rebuild's switch (or the API) must still get one. */
  maxConcurrentBatches?: number;
  logger?: ProjectorLogger;
  /** Backoff after a failure: first delay, doubling up to maxRetryDelayMs. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  onBatch?: (info: Readonly<{ events: number; position: Position }>) => void;
  onFailure?: (error: unknown) => void;
  /** Default 100: new events are taken at most this often, sooner once a batch's worth is waiting; a waiting reader wakes `hurry`. */
  coalesceMs?: number;
  hurry?: WakeSignal;
}>;

/** What applying a read model has cost so far in this process: time in its statements, events handed to it. */
export type ProjectionCost = Readonly<{ name: string; events: number; statements: number; ms: number }>;

export type Projector = Readonly<{
  stop(): Promise<void>;
  /** Read-your-writes: resolves once every projection has applied `position`; rejects if stopped first. */
  waitFor(position: Position): Promise<void>;
  /** Undefined before this process started it. */
  progress(name: string): Position | undefined;
  waitForModels(names: readonly string[], position: Position): Promise<void>;
  hurry(): void;
  follows(name: string): boolean;
  costs(): ProjectionCost[];
  done: Promise<void>;
}>;
