import {
  ANY,
  BACKWARDS,
  END,
  FORWARDS,
  KurrentDBClient,
  NO_STREAM,
  START as FROM_START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendStreamState,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import {
  DuplicateEventId,
  START,
  StoreUnavailable,
  WrongExpectedRevision,
  comparePositions,
  type AppendOutcome,
  type AppendRequest,
  type AppendResult,
  type EventStore,
  type Position,
  type ReadByKeysOptions,
  type RecordedEvent,
  type Snapshot,
  type Subscription,
  type SubscriptionOptions,
} from './event-store.port.js';
import { answerOutcome, classifyAppendFailure, withinDeadline } from './kurrentdb.failures.js';

type Recorded = NonNullable<ResolvedEvent['event']>;

const toState = (e: AppendRequest['expectedRevision']): AppendStreamState => (e === 'any' ? ANY : e === 'no_stream' ? NO_STREAM : e);
const fromPosition = (p: Position) => (comparePositions(p, START) <= 0 ? FROM_START : { commit: p.commit, prepare: p.prepare });
const isUserEvent = (e: Recorded | undefined): e is Recorded => !!e && !e.streamId.startsWith('$') && !e.type.startsWith('$');

const toRecordedEvent = (e: Recorded): RecordedEvent => ({
  id: e.id,
  streamId: e.streamId,
  revision: e.revision,
  position: e.position ? { commit: e.position.commit, prepare: e.position.prepare } : START,
  type: e.type,
  data: e.data as Record<string, unknown>,
  metadata: (e.metadata ?? {}) as Record<string, unknown>,
  createdAt: e.created,
});

export type KurrentDbEventStoreDeps = Readonly<{
  connectionString: string;
  /** How long an append keeps retrying through a leader change before it fails with StoreUnavailable (503). */
  appendRetryWindowMs?: number;
  /** Deadline of one append attempt, so that no attempt waits on the client's own 10 s default. */
  attemptDeadlineMs?: number;
}>;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** KurrentDB adapter: appendMany is parallel single appends (no cross-stream transaction, no key claims). */
export const createKurrentDbEventStore = (deps: KurrentDbEventStoreDeps): EventStore => {
  const retryWindowMs = deps.appendRetryWindowMs ?? 5_000;
  const attemptDeadlineMs = deps.attemptDeadlineMs ?? 2_000;
  const client = KurrentDBClient.connectionString(deps.connectionString);
  const subscriptions = new Set<Subscription>();

  const readStream = async (streamId: string, o: { fromRevision?: bigint; maxCount?: number } = {}): Promise<RecordedEvent[]> => {
    const read: RecordedEvent[] = [];
    try {
      const events = client.readStream(streamId, { direction: FORWARDS, fromRevision: o.fromRevision ?? FROM_START, maxCount: o.maxCount });
      for await (const resolved of events) if (resolved.event) read.push(toRecordedEvent(resolved.event));
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return read;
  };

  const readStreamBackward = async (streamId: string, o: { fromRevision?: bigint; maxCount?: number } = {}): Promise<RecordedEvent[]> => {
    const read: RecordedEvent[] = [];
    if (o.maxCount !== undefined && o.maxCount <= 0) return read;
    if (o.fromRevision !== undefined && o.fromRevision < 0n) return read;
    try {
      const events = client.readStream(streamId, { direction: BACKWARDS, fromRevision: o.fromRevision ?? END, maxCount: o.maxCount });
      for await (const resolved of events) if (resolved.event) read.push(toRecordedEvent(resolved.event));
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return read;
  };

  /**
   * KurrentDB indexes no key of an event's data: the stream is read newest first and filtered by the rule. This costs the
   * stream's length, where PostgreSQL's two indexes cost the item's own events; it runs only for an item the wallet no
   * longer holds (a retry of a final one, an admin operation's key), never for a new bet.
   */
  const readStreamByKeys = async (streamId: string, keys: readonly string[], o: ReadByKeysOptions): Promise<RecordedEvent[]> => {
    if (keys.length === 0) return [];
    const wanted = new Set(keys);
    const found: RecordedEvent[] = [];
    for (let from = o.toRevision; ;) {
      const page = await readStreamBackward(streamId, { ...(from === undefined ? {} : { fromRevision: from }), maxCount: 1000 });
      for (const e of page) if (o.rule.keysOf(e.type, e.data).some((k) => wanted.has(k))) found.push(e);
      if (page.length < 1000) break;
      from = page.at(-1)!.revision - 1n;
    }
    return found.reverse();
  };

  /** A stream's snapshots go to `snapshot-<stream>` as events of type `$snapshot`, which reads of $all leave out. */
  const snapshotStream = (streamId: string): string => `snapshot-${streamId}`;
  const readSnapshot = async (streamId: string): Promise<Snapshot | undefined> => {
    const [last] = await readStreamBackward(snapshotStream(streamId), { maxCount: 1 });
    if (!last) return undefined;
    const data = last.data as { revision?: string; state?: Record<string, unknown> };
    return data.revision === undefined || data.state === undefined ? undefined : { revision: BigInt(data.revision), data: data.state };
  };
  const writeSnapshot = async (streamId: string, snapshot: Snapshot): Promise<void> => {
    const current = await readSnapshot(streamId);
    if (current && current.revision >= snapshot.revision) return;
    await client.appendToStream(
      snapshotStream(streamId),
      jsonEvent({ type: '$snapshot', data: { revision: snapshot.revision.toString(), state: snapshot.data } }),
    );
  };

  const earlierAttempt = async (r: AppendRequest, lastRevision?: bigint): Promise<AppendResult | DuplicateEventId | undefined> => {
    const n = BigInt(r.events.length);
    const from = lastRevision !== undefined ? lastRevision - n + 1n : typeof r.expectedRevision === 'bigint' ? r.expectedRevision + 1n : 0n;
    if (from < 0n) return undefined;
    const stored = await readStream(r.streamId, { fromRevision: from, maxCount: r.events.length });
    const ids = new Set(stored.map((e) => e.id));
    const found = r.events.filter((e) => ids.has(e.id));
    if (found.length === 0) return undefined;
    if (found.length < r.events.length)
      return new DuplicateEventId(
        r.streamId,
        found.map((e) => e.id),
      );
    const last = stored.at(-1)!;
    return { streamId: r.streamId, nextExpectedRevision: last.revision, position: last.position, idempotent: true };
  };

  /** One attempt. The stream is read first where an earlier attempt would have written: a retried append answers idempotent. */
  const appendOnce = async (r: AppendRequest): Promise<AppendOutcome> => {
    const data = r.events.map((e) => jsonEvent({ id: e.id, type: e.type, data: { ...e.data }, metadata: { ...(e.metadata ?? {}) } }));
    try {
      const earlier = r.expectedRevision === 'any' ? undefined : await earlierAttempt(r);
      if (earlier instanceof DuplicateEventId) return earlier;
      const result = await client.appendToStream(r.streamId, data, {
        streamState: toState(r.expectedRevision),
        deadline: attemptDeadlineMs,
      });
      // The server's own answer (its position is the first write's on a retry), flagged by what the stream held before.
      if (result.position) return answerOutcome(r, result, earlier !== undefined);
      // Older servers answer an idempotent write without a position: report the first write's.
      const found = earlier ?? (await earlierAttempt(r, result.nextExpectedRevision));
      if (found) return found;
      return answerOutcome(r, result, false);
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      return (await earlierAttempt(r)) ?? new WrongExpectedRevision(r.streamId, r.expectedRevision, error.actualState);
    }
  };

  /** Retries a leader change within a short window (event ids make it safe), then fails with StoreUnavailable (503). */
  const appendOutcome = async (r: AppendRequest): Promise<AppendOutcome> => {
    if (r.events.length === 0) throw new TypeError(`append to ${r.streamId}: no events`);
    const started = Date.now();
    for (let backoff = 50; ; backoff = Math.min(backoff * 2, 500)) {
      try {
        return await withinDeadline(appendOnce(r), attemptDeadlineMs);
      } catch (error) {
        const failure = classifyAppendFailure(error);
        if (failure === 'fail') throw error;
        if (failure === 'unavailable' || Date.now() - started + backoff >= retryWindowMs) {
          throw new StoreUnavailable(`KurrentDB cannot take the append to ${r.streamId} (${(error as Error).name})`, { cause: error });
        }
        await sleep(backoff);
      }
    }
  };

  const readAll = async (o: { after?: Position; maxCount?: number } = {}): Promise<RecordedEvent[]> => {
    const after = o.after ?? START;
    const read: RecordedEvent[] = [];
    // fromPosition is inclusive: read one more and drop the event at `after`.
    const events = client.readAll({
      direction: FORWARDS,
      fromPosition: fromPosition(after),
      maxCount: o.maxCount === undefined ? undefined : o.maxCount + 1,
      filter: excludeSystemEvents(),
    });
    for await (const { event } of events) {
      if (isUserEvent(event) && comparePositions(event.position, after) > 0) read.push(toRecordedEvent(event));
    }
    return o.maxCount === undefined ? read : read.slice(0, o.maxCount);
  };

  const headPosition = async (): Promise<Position> => {
    for await (const { event } of client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1, filter: excludeSystemEvents() })) {
      if (event) return { commit: event.position.commit, prepare: event.position.prepare };
    }
    return START;
  };

  const subscribe = (options: SubscriptionOptions): Subscription => {
    const batchSize = options.batchSize ?? 500;
    const stream = client.subscribeToAll({ fromPosition: fromPosition(options.after), filter: excludeSystemEvents() });
    const controller = new AbortController();
    let failure: Error | undefined;
    stream.on('error', (error) => {
      failure = error;
    });
    options.signal?.addEventListener('abort', () => controller.abort(), { once: true });
    if (options.signal?.aborted) controller.abort();
    const run = async (): Promise<void> => {
      let after = options.after;
      try {
        const next = () => (failure ? Promise.reject(failure) : nextBatch(stream, batchSize, controller.signal));
        for (let batch = await next(); batch; batch = await next()) {
          const events = batch.flatMap(({ event }) =>
            isUserEvent(event) && comparePositions(event.position, after) > 0 ? [toRecordedEvent(event)] : [],
          );
          if (events.length === 0) continue;
          await options.onEvents(events);
          after = events.at(-1)!.position;
        }
      } finally {
        await stream.unsubscribe().catch(() => undefined);
      }
    };
    const done = run().catch((error: unknown) => {
      options.onError?.(error);
      throw error;
    });
    done.catch(() => undefined);
    const subscription: Subscription = {
      done,
      stop: async () => {
        controller.abort();
        await done.catch(() => undefined);
      },
    };
    subscriptions.add(subscription);
    void done.catch(() => undefined).finally(() => subscriptions.delete(subscription));
    return subscription;
  };

  return {
    kind: 'eventstoredb',
    claimsKeys: false,
    appendConcurrency: 3,
    append: async (r) => {
      const outcome = await appendOutcome(r);
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
    appendMany: (requests) => {
      if (new Set(requests.map((r) => r.streamId)).size !== requests.length) throw new TypeError('appendMany: stream ids must be distinct');
      return Promise.all(requests.map(appendOutcome));
    },
    readStream,
    readStreamBackward,
    readStreamByKeys,
    readSnapshot,
    writeSnapshot,
    readAll,
    headPosition,
    subscribe,
    ping: async () => {
      await headPosition();
    },
    close: async () => {
      await Promise.all([...subscriptions].map((s) => s.stop()));
      await client.dispose();
    },
  };
};

/** Up to `max` events already buffered (waiting for at least one); null when the stream ends or is aborted. */
const nextBatch = (stream: AllStreamSubscription, max: number, abort: AbortSignal): Promise<AllStreamResolvedEvent[] | null> =>
  new Promise((resolve, reject) => {
    const take = (): void => {
      const batch: AllStreamResolvedEvent[] = [];
      for (
        let item = stream.read() as AllStreamResolvedEvent | null;
        item;
        item = batch.length < max ? (stream.read() as AllStreamResolvedEvent | null) : null
      ) {
        batch.push(item);
      }
      if (batch.length > 0) finish(() => resolve(batch));
      else if (stream.readableEnded) finish(() => resolve(null));
    };
    const onEnd = (): void => finish(() => resolve(null));
    const onError = (error: Error): void => finish(() => reject(error));
    const finish = (settle: () => void): void => {
      stream.off('readable', take).off('end', onEnd).off('error', onError);
      abort.removeEventListener('abort', onEnd);
      settle();
    };
    if (abort.aborted) return resolve(null);
    stream.on('readable', take).on('end', onEnd).on('error', onError);
    abort.addEventListener('abort', onEnd);
    take();
  });
