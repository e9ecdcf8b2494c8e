import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DuplicateEventId,
  START,
  WrongExpectedRevision,
  comparePositions,
  type EventStore,
  type NewEvent,
  type Position,
  type RecordedEvent,
  type StreamKeyRule,
} from '../../src/infra/event-store/event-store.port.js';

/** A key rule of the contract's own: `item` names an event's item; an `Opened` event is found by its `alias` too. */
export const CONTRACT_KEYS: StreamKeyRule = {
  name: 'contract-items',
  primarySql: `'i:' || (data->>'item')`,
  secondarySql: `'a:' || (data->>'alias')`,
  secondaryTypes: ['Opened'],
  keysOf: (type, data) => [
    ...(typeof data.item === 'string' ? [`i:${data.item}`] : []),
    ...(type === 'Opened' && typeof data.alias === 'string' ? [`a:${data.alias}`] : []),
  ],
};

export type StoreFactory = () => Promise<{ store: EventStore; cleanup: () => Promise<void> }>;

export const newEvent = (type = 'Tested', data: Record<string, unknown> = { amount: '1.50' }): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: { by: 'contract' },
});
export const events = (n: number): NewEvent[] => Array.from({ length: n }, (_, i) => newEvent('Tested', { i }));
export const streamName = (prefix = 'contract'): string => `${prefix}-${randomUUID()}`;

/** A running subscription that records what it is given. */
export const collect = (store: EventStore, after: Position, batchSize?: number) => {
  const received: RecordedEvent[] = [];
  const subscription = store.subscribe({
    after,
    batchSize,
    onEvents: async (batch) => {
      received.push(...batch);
    },
  });
  const waitFor = (predicate: (seen: readonly RecordedEvent[]) => boolean, timeout = 10_000) =>
    vi.waitFor(() => expect(predicate(received)).toBe(true), { timeout, interval: 10 });
  return { received, subscription, waitFor, ids: () => received.map((e) => e.id) };
};

/**
 * readAll only returns what no open transaction can still precede (on PostgreSQL, any transaction on the
 * server holds it back for a moment), so a test waits for its own appends to become readable.
 */
export const readAllEventually = async (store: EventStore, after: Position, count: number): Promise<RecordedEvent[]> => {
  let read: RecordedEvent[] = [];
  await vi.waitFor(
    async () => {
      read = await store.readAll({ after });
      expect(read.length).toBeGreaterThanOrEqual(count);
    },
    { timeout: 10_000, interval: 10 },
  );
  return read;
};

/**
 * A starting position with nothing hidden behind it. The visible head can lag: on PostgreSQL a commit stays
 * unreadable while any older transaction on the server is open (another test file, a benchmark), and an earlier
 * test's event that shows up later would land after a head read too early. A marker appended now is readable only
 * once every earlier commit is: its position is such a start.
 */
export const settledHead = async (store: EventStore): Promise<Position> => {
  const stream = streamName('marker');
  await store.append({ streamId: stream, events: [newEvent('Marker')], expectedRevision: 'no_stream' });
  const [marker] = await store.readStream(stream);
  await vi.waitFor(async () => expect(comparePositions(await store.headPosition(), marker!.position)).toBeGreaterThanOrEqual(0), {
    timeout: 10_000,
    interval: 10,
  });
  return marker!.position;
};

export const expectStrictlyOrdered = (recorded: readonly RecordedEvent[]): void => {
  for (let i = 1; i < recorded.length; i++) expect(comparePositions(recorded[i - 1]!.position, recorded[i]!.position)).toBe(-1);
};

export type ContractOptions = Readonly<{
  /** PostgreSQL refuses an event id stored anywhere; KurrentDB only sees ids where a retry would have written them. */
  uniqueEventIds?: boolean;
}>;

export const eventStoreContract = (name: string, makeStore: StoreFactory, options: ContractOptions = {}) =>
  describe(`event store contract: ${name}`, () => {
    const uniqueEventIds = options.uniqueEventIds ?? true;
    let store: EventStore;
    let cleanups: (() => Promise<void>)[] = [];
    const open = async (): Promise<EventStore> => {
      const made = await makeStore();
      cleanups.push(made.cleanup);
      return made.store;
    };
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await Promise.all(cleanups.map((c) => c()));
      cleanups = [];
    });

    it('when events are appended to a new stream, then reading the stream returns them with revisions, data and metadata', async () => {
      const stream = streamName();
      const appended = events(3);
      const result = await store.append({ streamId: stream, events: appended, expectedRevision: 'no_stream' });
      expect(result).toMatchObject({ streamId: stream, nextExpectedRevision: 2n, idempotent: false });
      const read = await store.readStream(stream);
      expect(read.map((e) => [e.id, e.revision, e.type, e.data, e.metadata])).toEqual(
        appended.map((e, i) => [e.id, BigInt(i), e.type, e.data, e.metadata]),
      );
      expect(read.every((e) => e.streamId === stream && e.createdAt instanceof Date)).toBe(true);
    });

    it('when event data holds quotes, backslashes, control characters and non-ASCII text, then it reads back exactly', async () => {
      const stream = streamName();
      const odd = [
        '"quoted"',
        'back\\slash',
        'sep\u0001arated',
        'tab\tand\nnewline',
        'brace {"a":[1,2]}',
        'NULL',
        'a,b|c;d',
        'héllo ✓ 𝄞',
        '',
      ];
      const appended = odd.map((text, i) => ({ ...newEvent('Odd'), data: { text, i, nested: { text } }, metadata: { note: text } }));
      const second = [{ ...newEvent('Odd'), data: { text: odd[2]! }, metadata: {} }];
      await store.appendMany([
        { streamId: stream, events: appended, expectedRevision: 'no_stream' },
        { streamId: streamName(), events: second, expectedRevision: 'no_stream' },
      ]);
      const read = await store.readStream(stream);
      expect(read.map((e) => [e.data, e.metadata])).toEqual(appended.map((e) => [e.data, e.metadata]));
    });

    it('when a stream is expected not to exist but does, then the append fails with WrongExpectedRevision', async () => {
      const stream = streamName();
      await store.append({ streamId: stream, events: events(2), expectedRevision: 'no_stream' });
      await expect(store.append({ streamId: stream, events: events(1), expectedRevision: 'no_stream' })).rejects.toMatchObject({
        name: 'WrongExpectedRevision',
        streamId: stream,
        expected: 'no_stream',
        actual: 1n,
      });
    });

    it('when the last revision is expected, then the append succeeds; when a stale one is, then it fails with the actual revision and writes nothing', async () => {
      const stream = streamName();
      await store.append({ streamId: stream, events: events(2), expectedRevision: 'no_stream' });
      expect(await store.append({ streamId: stream, events: events(2), expectedRevision: 1n })).toMatchObject({ nextExpectedRevision: 3n });
      const stale = store.append({ streamId: stream, events: events(1), expectedRevision: 1n });
      await expect(stale).rejects.toBeInstanceOf(WrongExpectedRevision);
      await expect(stale).rejects.toMatchObject({ expected: 1n, actual: 3n });
      expect(await store.readStream(stream)).toHaveLength(4);
    });

    it('when a revision is expected of a stream that does not exist, then WrongExpectedRevision reports no_stream', async () => {
      await expect(store.append({ streamId: streamName(), events: events(1), expectedRevision: 0n })).rejects.toMatchObject({
        name: 'WrongExpectedRevision',
        actual: 'no_stream',
      });
    });

    it("when 'any' is expected, then the append succeeds whether or not the stream exists", async () => {
      const stream = streamName();
      expect(await store.append({ streamId: stream, events: events(2), expectedRevision: 'any' })).toMatchObject({
        nextExpectedRevision: 1n,
      });
      expect(await store.append({ streamId: stream, events: events(1), expectedRevision: 'any' })).toMatchObject({
        nextExpectedRevision: 2n,
      });
      expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0n, 1n, 2n]);
    });

    it('when 24 writers append to one stream at the same revision at once, then exactly one wins', async () => {
      const stream = streamName();
      await store.append({ streamId: stream, events: events(1), expectedRevision: 'no_stream' });
      const attempts = await Promise.allSettled(
        Array.from({ length: 24 }, () => store.append({ streamId: stream, events: events(2), expectedRevision: 0n })),
      );
      const won = attempts.filter((a) => a.status === 'fulfilled');
      const lost = attempts.flatMap((a) => (a.status === 'rejected' ? [a.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(23);
      expect(lost.every((e) => e instanceof WrongExpectedRevision && e.actual === 2n)).toBe(true);
      expect(await store.readStream(stream)).toHaveLength(3);
    });

    it('when the same event ids are appended again, then nothing is written twice and the first result comes back', async () => {
      const stream = streamName();
      const batch = events(2);
      const first = await store.append({ streamId: stream, events: batch, expectedRevision: 'no_stream' });
      const retry = await store.append({ streamId: stream, events: batch, expectedRevision: 'no_stream' });
      expect(retry).toEqual({ ...first, idempotent: true });
      await store.append({ streamId: stream, events: events(1), expectedRevision: 1n });
      const lateRetry = await store.append({ streamId: stream, events: batch, expectedRevision: 'no_stream' });
      expect(lateRetry).toEqual({ ...first, idempotent: true });
      expect(await store.readStream(stream)).toHaveLength(3);
    });

    it.runIf(uniqueEventIds)('when some of the ids are already stored, or stored in another stream, then DuplicateEventId', async () => {
      const stream = streamName();
      const [a, b] = events(2);
      await store.append({ streamId: stream, events: [a!], expectedRevision: 'no_stream' });
      await expect(store.append({ streamId: stream, events: [a!, b!], expectedRevision: 0n })).rejects.toBeInstanceOf(DuplicateEventId);
      const elsewhere = store.append({ streamId: streamName(), events: [a!], expectedRevision: 'any' });
      await expect(elsewhere).rejects.toMatchObject({ name: 'DuplicateEventId', eventIds: [a!.id] });
      expect(await store.readStream(stream)).toHaveLength(1);
    });

    it('when appendMany mixes winners and losers, then each request succeeds or fails on its own', async () => {
      const [existing, stale, dup] = [streamName(), streamName(), streamName()];
      await store.append({ streamId: existing, events: events(1), expectedRevision: 'no_stream' });
      await store.append({ streamId: stale, events: events(2), expectedRevision: 'no_stream' });
      const stored = newEvent();
      await store.append({ streamId: dup, events: [stored], expectedRevision: 'no_stream' });
      const fresh = streamName();
      const outcomes = await store.appendMany([
        { streamId: fresh, events: events(2), expectedRevision: 'no_stream' },
        { streamId: stale, events: events(1), expectedRevision: 0n },
        { streamId: existing, events: events(1), expectedRevision: 0n },
        { streamId: streamName(), events: events(1), expectedRevision: 'any' },
        { streamId: dup, events: [newEvent(), stored], expectedRevision: 'no_stream' },
      ]);
      expect(outcomes[0]).toMatchObject({ streamId: fresh, nextExpectedRevision: 1n, idempotent: false });
      expect(outcomes[1]).toBeInstanceOf(WrongExpectedRevision);
      expect(outcomes[1]).toMatchObject({ actual: 1n });
      expect(outcomes[2]).toMatchObject({ streamId: existing, nextExpectedRevision: 1n });
      expect(outcomes[3]).toMatchObject({ nextExpectedRevision: 0n });
      expect(outcomes[4]).toBeInstanceOf(DuplicateEventId);
      expect(await store.readStream(stale)).toHaveLength(2);
      expect(await store.readStream(dup)).toHaveLength(1);
      expect(await store.readStream(fresh)).toHaveLength(2);
    });

    it('when a stream is read from a revision with a maximum count, then exactly that window comes back', async () => {
      const stream = streamName();
      await store.append({ streamId: stream, events: events(6), expectedRevision: 'no_stream' });
      expect((await store.readStream(stream, { fromRevision: 2n, maxCount: 3 })).map((e) => e.revision)).toEqual([2n, 3n, 4n]);
      expect(await store.readStream(stream, { fromRevision: 6n })).toEqual([]);
      expect(await store.readStream(streamName())).toEqual([]);
    });

    it('when a stream is read backwards, then it comes newest first from the end or from a revision, at most maxCount', async () => {
      const stream = streamName();
      const appended = events(6);
      await store.append({ streamId: stream, events: appended, expectedRevision: 'no_stream' });
      const all = await store.readStreamBackward(stream);
      expect(all.map((e) => [e.id, e.revision])).toEqual(appended.map((e, i) => [e.id, BigInt(i)]).reverse());
      expect(all.map((e) => e.data)).toEqual(appended.map((e) => e.data).reverse());
      for (let i = 1; i < all.length; i++) expect(comparePositions(all[i]!.position, all[i - 1]!.position)).toBe(-1);
      expect((await store.readStreamBackward(stream, { maxCount: 2 })).map((e) => e.revision)).toEqual([5n, 4n]);
      expect((await store.readStreamBackward(stream, { fromRevision: 3n, maxCount: 2 })).map((e) => e.revision)).toEqual([3n, 2n]);
      expect((await store.readStreamBackward(stream, { fromRevision: 1n })).map((e) => e.revision)).toEqual([1n, 0n]);
      expect((await store.readStreamBackward(stream, { fromRevision: 40n, maxCount: 1 })).map((e) => e.revision)).toEqual([5n]);
      expect(await store.readStreamBackward(stream, { maxCount: 0 })).toEqual([]);
      expect(await store.readStreamBackward(streamName())).toEqual([]);
    });

    it('when all events are read after a position, then only events strictly after it come back, in global order', async () => {
      const before = await settledHead(store);
      const appended = [...events(3), ...events(2)];
      await store.append({ streamId: streamName(), events: appended.slice(0, 3), expectedRevision: 'no_stream' });
      await store.append({ streamId: streamName(), events: appended.slice(3), expectedRevision: 'no_stream' });
      const read = await readAllEventually(store, before, 5);
      expect(read.map((e) => e.id)).toEqual(appended.map((e) => e.id));
      expectStrictlyOrdered(read);
      const afterSecond = await store.readAll({ after: read[1]!.position });
      expect(afterSecond.map((e) => e.id)).toEqual(appended.slice(2).map((e) => e.id));
      expect((await store.readAll({ after: before, maxCount: 2 })).map((e) => e.id)).toEqual(appended.slice(0, 2).map((e) => e.id));
    });

    it('when events are appended, then headPosition is the position of the last readable event', async () => {
      const start = await settledHead(store);
      expect(comparePositions(start, START)).toBeGreaterThanOrEqual(0);
      await store.append({ streamId: streamName(), events: events(2), expectedRevision: 'any' });
      const read = await readAllEventually(store, start, 2);
      const head = await store.headPosition();
      expect(head).toEqual(read.at(-1)!.position);
      expect(await store.readAll({ after: head })).toEqual([]);
    });

    it('when events are appended live, including by a second store instance, then a subscription delivers each exactly once in order', async () => {
      const other = await open();
      const start = await settledHead(store);
      const sub = collect(store, start, 3);
      const expected: string[] = [];
      for (let i = 0; i < 8; i++) {
        const writer = i % 2 === 0 ? store : other;
        const batch = events(1 + (i % 3));
        expected.push(...batch.map((e) => e.id));
        await writer.append({ streamId: streamName('live'), events: batch, expectedRevision: 'no_stream' });
        if (i % 3 === 0) await new Promise((r) => setTimeout(r, 20));
      }
      await sub.waitFor((seen) => seen.length >= expected.length);
      await new Promise((r) => setTimeout(r, 100));
      await sub.subscription.stop();
      expect(sub.ids()).toEqual(expected);
      expectStrictlyOrdered(sub.received);
    });

    it('when a subscription starts from a position in the middle, then it delivers only what follows', async () => {
      const start = await settledHead(store);
      const appended = events(5);
      await store.append({ streamId: streamName(), events: appended, expectedRevision: 'no_stream' });
      const middle = (await readAllEventually(store, start, 5))[1]!.position;
      const sub = collect(store, middle);
      await sub.waitFor((seen) => seen.length >= 3);
      await sub.subscription.stop();
      expect(sub.ids()).toEqual(appended.slice(2).map((e) => e.id));
    });

    it('when stop() is called or the signal aborts, then the subscription ends and delivers nothing more', async () => {
      const start = await settledHead(store);
      const sub = collect(store, start);
      await store.append({ streamId: streamName(), events: events(1), expectedRevision: 'any' });
      await sub.waitFor((seen) => seen.length === 1);
      await sub.subscription.stop();
      await expect(sub.subscription.done).resolves.toBeUndefined();
      await store.append({ streamId: streamName(), events: events(1), expectedRevision: 'any' });
      await new Promise((r) => setTimeout(r, 300));
      expect(sub.received).toHaveLength(1);

      const controller = new AbortController();
      const aborted = store.subscribe({ after: start, signal: controller.signal, onEvents: async () => undefined });
      controller.abort();
      await expect(aborted.done).resolves.toBeUndefined();
    });

    it('when onEvents throws, then the subscription ends: done rejects with the error and onError is called', async () => {
      const start = await settledHead(store);
      await store.append({ streamId: streamName(), events: events(1), expectedRevision: 'any' });
      const failure = new Error('projection failed');
      const onError = vi.fn();
      const sub = store.subscribe({ after: start, onError, onEvents: () => Promise.reject(failure) });
      await expect(sub.done).rejects.toBe(failure);
      expect(onError).toHaveBeenCalledWith(failure);
      await sub.stop();
    });

    it('when events are read by item key, then exactly the events under those keys (primary or secondary) come back in stream order, up to a revision', async () => {
      const stream = streamName();
      const other = streamName();
      const x = randomUUID();
      await store.append({
        streamId: stream,
        expectedRevision: 'no_stream',
        events: [
          newEvent('Opened', { item: `a-${x}`, alias: `ext-${x}` }),
          newEvent('Tested', { item: `b-${x}` }),
          newEvent('Closed', { item: `a-${x}`, alias: `ext-${x}` }),
          newEvent('Tested', { other: true }),
          newEvent('Tested', { item: `b-${x}` }),
        ],
      });
      await store.append({
        streamId: other,
        expectedRevision: 'no_stream',
        events: [newEvent('Opened', { item: `a-${x}`, alias: `ext-${x}` })],
      });
      const read = (keys: string[], toRevision?: bigint) =>
        store.readStreamByKeys(stream, keys, { rule: CONTRACT_KEYS, ...(toRevision === undefined ? {} : { toRevision }) });

      expect((await read([`i:a-${x}`])).map((e) => [e.revision, e.type])).toEqual([
        [0n, 'Opened'],
        [2n, 'Closed'],
      ]);
      // The secondary key counts only for its types: the Closed event's alias is not a key.
      expect((await read([`a:ext-${x}`])).map((e) => e.revision)).toEqual([0n]);
      expect((await read([`i:b-${x}`, `a:ext-${x}`])).map((e) => e.revision)).toEqual([0n, 1n, 4n]);
      expect((await read([`i:b-${x}`], 3n)).map((e) => e.revision)).toEqual([1n]);
      expect(await read([`i:none-${x}`])).toEqual([]);
      expect(await read([])).toEqual([]);
      expect(await store.readStreamByKeys(streamName(), [`i:a-${x}`], { rule: CONTRACT_KEYS })).toEqual([]);
    });

    it('when snapshots are written, then the latest by revision is read back, an older one never replaces it, and the stream is unchanged', async () => {
      const stream = streamName();
      await store.append({ streamId: stream, expectedRevision: 'no_stream', events: events(3) });
      expect(await store.readSnapshot(stream)).toBeUndefined();
      await store.writeSnapshot(stream, { revision: 1n, data: { balance: '10', items: [['a', { n: '1' }]] } });
      expect(await store.readSnapshot(stream)).toEqual({ revision: 1n, data: { balance: '10', items: [['a', { n: '1' }]] } });
      await store.writeSnapshot(stream, { revision: 2n, data: { balance: '12' } });
      await store.writeSnapshot(stream, { revision: 0n, data: { balance: '3' } });
      expect(await store.readSnapshot(stream)).toEqual({ revision: 2n, data: { balance: '12' } });
      expect(await store.readStream(stream)).toHaveLength(3);
      const head = await settledHead(store);
      const all = await store.readAll({ after: START });
      expect(all.some((e) => e.streamId.includes(stream) && e.streamId !== stream)).toBe(false);
      expect(comparePositions(head, all.at(-1)?.position ?? START)).toBe(0);
    });
  });
