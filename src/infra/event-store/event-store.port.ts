/** Revision of the last event of a stream (0-based), or a rule for a stream's expected state. */
export type ExpectedRevision = bigint | 'no_stream' | 'any';

/** Totally ordered: PostgreSQL (xid, global sequence), KurrentDB (commit, prepare); u64 pairs compared lexicographically. */
export type Position = Readonly<{ commit: bigint; prepare: bigint }>;

export const START: Position = Object.freeze({ commit: -1n, prepare: -1n });

export const comparePositions = (a: Position, b: Position): number =>
  a.commit !== b.commit ? (a.commit < b.commit ? -1 : 1) : a.prepare === b.prepare ? 0 : a.prepare < b.prepare ? -1 : 1;

/** Serialised form for checkpoints tables and client-facing cursors: "commit/prepare". */
export const formatPosition = (p: Position): string => `${p.commit}/${p.prepare}`;
export const parsePosition = (s: string): Position => {
  const m = /^(-?\d+)\/(-?\d+)$/.exec(s);
  if (!m) throw new Error(`malformed position: ${s}`);
  return { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) };
};

export type EventMetadata = Readonly<Record<string, unknown>>;

/** An event about to be appended. `id` is unique across the store; re-appending it has no second effect. */
export type NewEvent = Readonly<{
  id: string; // uuid
  type: string;
  data: Readonly<Record<string, unknown>>;
  metadata?: EventMetadata;
}>;

export type RecordedEvent = Readonly<{
  id: string;
  streamId: string;
  /** 0-based position of the event in its stream. */
  revision: bigint;
  position: Position;
  type: string;
  data: Readonly<Record<string, unknown>>;
  metadata: EventMetadata;
  createdAt: Date;
}>;

/**
 * A unique key (kind + key) that a stream's append claims for `owner` (a wallet's user id). A `fresh` claim is for a
 * key's first use: one that exists already, even the owner's own, refuses the request (KeyOwnedElsewhere naming the
 * owner itself), so a caller that does not hold the key's history in memory learns that it must look it up.
 */
export type KeyClaim = Readonly<{ kind: string; key: string; owner: number; fresh?: boolean }>;

export type AppendRequest = Readonly<{
  streamId: string;
  events: readonly NewEvent[];
  expectedRevision: ExpectedRevision;
  /** Claimed in the append's own transaction (`claimsKeys` stores only): written only if every key is free or already the owner's. */
  claims?: readonly KeyClaim[];
  /** Bet guards checked in the append's own snapshot, only by stores whose `claimsKeys` is true (else GuardRefused). */
  guards?: readonly BetGuardCheck[];
}>;

/**
 * A rule the application hands the PostgreSQL append to run inside its own statement: an SQL expression of a request's
 * user id, USD amount and time (given as SQL expressions) that yields the reason the request is refused, or NULL. The
 * adapter knows nothing of what it reads; statements are prepared per rule `name`.
 */
export type AppendGuardRule = Readonly<{ name: string; refusalSql: (user: string, usd: string, at: string, figures: string) => string }>;

/**
 * One check of `rule` for a request: `usdAmount` a USD decimal (or null), `at` the command's time, `figures` decimals
 * the application computed with the request (a numeric[] for the rule; null entries stay NULL).
 */
export type BetGuardCheck = Readonly<{
  rule: AppendGuardRule;
  userId: number;
  usdAmount: string | null;
  at: Date;
  figures?: readonly (string | null)[];
}>;

/** A check's figures as the text of a PostgreSQL numeric[]. */
export const figuresLiteral = (figures: readonly (string | null)[] | undefined): string =>
  `{${(figures ?? []).map((f) => f ?? 'NULL').join(',')}}`;

/**
 * How the application names the items its events are about, so that the store finds a stream's events by item key
 * without reading the stream: each event has at most a primary key and a secondary key. PostgreSQL indexes the two SQL
 * expressions (the application's migration creates the indexes from them); a store that cannot index them runs `keysOf`.
 */
export type StreamKeyRule = Readonly<{
  name: string;
  /** SQL of the columns `type` and `data` (jsonb): the event's primary key, or NULL. */
  primarySql: string;
  /** SQL of `type` and `data`: the event's secondary key; indexed only for `secondaryTypes`. */
  secondarySql: string;
  secondaryTypes: readonly string[];
  keysOf: (type: string, data: Readonly<Record<string, unknown>>) => readonly string[];
}>;

export type ReadByKeysOptions = Readonly<{ rule: StreamKeyRule; /** The newest revision to return (default: all). */ toRevision?: bigint }>;

/** A stream's state as of `revision`, written by the application to start folding from; `data` is the application's own. */
export type Snapshot = Readonly<{ revision: bigint; data: Readonly<Record<string, unknown>> }>;

export type AppendResult = Readonly<{
  streamId: string;
  nextExpectedRevision: bigint;
  position: Position;
  /** True when every event id was already stored in this stream: nothing was written. */
  idempotent: boolean;
}>;

/** A concurrent writer got there first. Commands re-read and retry; never a silent overwrite. */
export class WrongExpectedRevision extends Error {
  override readonly name = 'WrongExpectedRevision';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/** Some (not all) of the event ids of an append are already stored, or stored in another stream. */
export class DuplicateEventId extends Error {
  override readonly name = 'DuplicateEventId';
  constructor(
    readonly streamId: string,
    readonly eventIds: readonly string[],
  ) {
    super(`stream ${streamId}: event ids already stored elsewhere: ${eventIds.join(', ')}`);
  }
}

/** A claimed key belongs to another owner: nothing of the request was written. */
export class KeyOwnedElsewhere extends Error {
  override readonly name = 'KeyOwnedElsewhere';
  constructor(
    readonly streamId: string,
    readonly claims: readonly KeyClaim[],
  ) {
    super(`stream ${streamId}: keys owned elsewhere: ${claims.map((c) => `${c.kind}:${c.key} (owner ${c.owner})`).join(', ')}`);
  }
}

/** A guard of the request refused it (ban, self-exclusion, bet limit): nothing of it was written. */
export class GuardRefused extends Error {
  override readonly name = 'GuardRefused';
  constructor(
    readonly streamId: string,
    /** When the store ran the rule: what each of the request's guard checks yielded, in order (null: that one passed). */
    readonly refusals?: readonly (string | null)[],
  ) {
    super(`stream ${streamId}: a bet guard refused the append${refusals ? ` (${refusals.filter(Boolean).join('; ')})` : ''}`);
  }
}

/** The store refused this request's own data: nothing of it was written; the rest of the group commit was. */
export class AppendRefused extends Error {
  override readonly name = 'AppendRefused';
  readonly statusCode = 400;
  readonly code = 'UNSTORABLE_VALUE';
  constructor(
    readonly streamId: string,
    readonly sqlState: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(`stream ${streamId}: the event store refused the events' data${sqlState ? ` (${sqlState})` : ''}`, options);
  }
}

/** The store cannot take writes now (no leader, deadline, outage): answer 503 and let the caller retry. */
export class StoreUnavailable extends Error {
  override readonly name = 'StoreUnavailable';
  readonly statusCode = 503;
  readonly code = 'EVENT_STORE_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export type AppendOutcome = AppendResult | WrongExpectedRevision | DuplicateEventId | KeyOwnedElsewhere | GuardRefused | AppendRefused;

export type ReadStreamOptions = Readonly<{ fromRevision?: bigint; maxCount?: number }>;
/** Backwards: `fromRevision` is the newest revision to return (default: the stream's last event). */
export type ReadStreamBackwardOptions = Readonly<{ fromRevision?: bigint; maxCount?: number }>;
export type ReadAllOptions = Readonly<{ after?: Position; maxCount?: number }>;

export type SubscriptionOptions = Readonly<{
  /** Strictly after this position. */
  after: Position;
  /** The next batch waits for the promise (backpressure). */
  onEvents: (events: readonly RecordedEvent[]) => Promise<void>;
  batchSize?: number;
  signal?: AbortSignal;
  onError?: (error: unknown) => void;
}>;

export type Subscription = Readonly<{
  /** Settles when stopped; rejects with the error when onEvents threw (after onError). An unawaited rejection does not crash. */
  done: Promise<void>;
  stop: () => Promise<void>;
}>;

export interface EventStore {
  readonly kind: 'postgres' | 'eventstoredb';
  /** True when appends honour `AppendRequest.claims` and `guards` atomically (else callers claim and check before appending). */
  readonly claimsKeys: boolean;
  /** Group-commit writes worth having in flight at once: 1 where one appendMany is one transaction (more only contend). */
  readonly appendConcurrency?: number;
  append(request: AppendRequest): Promise<AppendResult>;
  /** Group commit over distinct streams: each request succeeds or fails on its own. */
  appendMany(requests: readonly AppendRequest[]): Promise<AppendOutcome[]>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** A stream newest first: revisions `fromRevision` (default the last), `fromRevision - 1`, ... at most `maxCount`. Unknown stream: []. */
  readStreamBackward(streamId: string, options?: ReadStreamBackwardOptions): Promise<RecordedEvent[]>;
  /** The events of a stream that carry one of `keys` under the rule, in stream order. Unknown stream: []. */
  readStreamByKeys(streamId: string, keys: readonly string[], options: ReadByKeysOptions): Promise<RecordedEvent[]>;
  /** The stream's latest snapshot, or undefined. */
  readSnapshot(streamId: string): Promise<Snapshot | undefined>;
  /** Keeps the snapshot unless one at a later revision is already stored; a snapshot never changes what the stream holds. */
  writeSnapshot(streamId: string, snapshot: Snapshot): Promise<void>;
  /** Events strictly after `after`, in global order; never returns an event before one that is still invisible. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** The position of the last event that readAll can currently see (START when empty). */
  headPosition(): Promise<Position>;
  /** Catch-up subscription: reads from `after`, then follows live appends, never skipping one. */
  subscribe(options: SubscriptionOptions): Subscription;
  ping(): Promise<void>;
  close(): Promise<void>;
}
