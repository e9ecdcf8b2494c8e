import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DuplicateEventId, comparePositions, type EventStore } from '../../src/infra/event-store/event-store.port.js';
import { createPostgresEventStore, FOLLOWER_SETTINGS } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { siblingPool } from '../../src/infra/pg.js';
import { migrateEventStore } from '../../src/infra/event-store/postgres/postgres.migration.js';
import { readAllFollowing, readStreamBackwardQuery, readStreamQuery } from '../../src/infra/event-store/postgres/postgres.reads.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { collect, eventStoreContract, events, expectStrictlyOrdered, newEvent, settledHead, streamName } from './event-store.contract.js';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb('event_store', { ownCluster: true }); // it holds writing transactions open
  await migrateEventStore(db.pool({ max: 1 }));
});
afterAll(() => db.drop());

const openStore = async (options: { pollIntervalMs?: number; idleInTransactionTimeoutMs?: number } = {}) => {
  const pool = db.pool({ idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs });
  const store = createPostgresEventStore({ pool, pollIntervalMs: options.pollIntervalMs });
  return {
    store,
    pool,
    cleanup: async () => {
      await store.close();
      await pool.end();
    },
  };
};

eventStoreContract('postgres', () => openStore());

/** Appends one event inside a transaction that stays open, the way a slow writer would. */
const holdOpenAppend = async (pool: pg.Pool) => {
  const client = await pool.connect();
  const errors: Error[] = [];
  client.on('error', (e) => errors.push(e));
  const held = newEvent('Held');
  const stream = streamName('held');
  await client.query('BEGIN');
  await client.query(`INSERT INTO streams (stream_id, revision) VALUES ($1, 0)`, [stream]);
  await client.query(`INSERT INTO events (stream_id, stream_revision, event_id, type, data) VALUES ($1, 0, $2, 'Held', '{}')`, [
    stream,
    held.id,
  ]);
  return { client, held, stream, errors };
};

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('postgres event store', () => {
  let store: EventStore;
  let pool: pg.Pool;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ store, pool, cleanup } = await openStore()));
  afterAll(() => cleanup());

  it('when a transaction that appended first commits last, then readers wait for it and lose nothing', async () => {
    const start = await settledHead(store);
    const sub = collect(store, start);
    const { client, held } = await holdOpenAppend(pool);
    let committed = false;
    try {
      const later = events(4);
      const laterStreams = later.map(() => streamName('later'));
      for (const [i, e] of later.entries()) await store.append({ streamId: laterStreams[i]!, events: [e], expectedRevision: 'no_stream' });
      expect(await store.readStream(laterStreams[0]!)).toHaveLength(1); // committed, yet not readable in global order

      await pause(400);
      expect(await store.readAll({ after: start })).toEqual([]);
      expect(await store.headPosition()).toEqual(start);
      expect(sub.received).toEqual([]);

      await client.query('COMMIT');
      committed = true;
      await sub.waitFor((seen) => seen.length >= 5);
      await pause(100);
      await sub.subscription.stop();
      const expected = [held.id, ...later.map((e) => e.id)];
      expect(sub.ids()).toEqual(expected);
      expectStrictlyOrdered(sub.received);
      expect((await store.readAll({ after: start })).map((e) => e.id)).toEqual(expected);
      // The trap: the held event's sequence number is below those already committed when it became visible.
      expect(sub.received[0]!.position.prepare < sub.received[1]!.position.prepare).toBe(true);
    } finally {
      if (!committed) await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      await sub.subscription.stop();
    }
  });

  it('when events are held back, then appends of this process do not make a subscription read again at each one', async () => {
    const start = await settledHead(store);
    const sub = collect(store, start);
    await pause(50); // the first read, before anything is held back
    const { client, held } = await holdOpenAppend(pool);
    let committed = false;
    const spy = vi.spyOn(pool, 'query'); // calls through to the real pool
    try {
      const later = events(40);
      const began = performance.now();
      // Each append wakes this process's followers; spaced out, so that a read could follow every one of them.
      for (const e of later) {
        await store.append({ streamId: streamName('later'), events: [e], expectedRevision: 'no_stream' });
        await pause(10);
      }
      const elapsed = performance.now() - began;
      const reads = spy.mock.calls.filter(([text]) => String(text).includes('held_back')).length;
      // Retries at 5, 10, 20, 40, 80 ms, then every 100 ms; a read per append would be 40 or more.
      expect(reads).toBeLessThanOrEqual(8 + elapsed / 100);
      expect(sub.received).toEqual([]);

      await client.query('COMMIT');
      committed = true;
      await sub.waitFor((seen) => seen.length >= 41);
      expect(sub.ids()).toEqual([held.id, ...later.map((e) => e.id)]);
    } finally {
      spy.mockRestore();
      if (!committed) await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      await sub.subscription.stop();
    }
  });

  it('when a writer leaves its transaction idle, then PostgreSQL ends it and readers proceed', async () => {
    const short = await openStore({ idleInTransactionTimeoutMs: 500 });
    try {
      const start = await settledHead(short.store);
      const sub = collect(short.store, start);
      const stuck = await holdOpenAppend(short.pool);
      const later = events(2);
      await short.store.append({ streamId: streamName(), events: later, expectedRevision: 'no_stream' });
      expect(await short.store.readAll({ after: start })).toEqual([]);
      await sub.waitFor((seen) => seen.length === 2, 5_000);
      expect(sub.ids()).toEqual(later.map((e) => e.id));
      await expect(stuck.client.query('COMMIT')).rejects.toThrow();
      stuck.client.release(true);
      expect(await short.store.readStream(stuck.stream)).toEqual([]);
      await sub.subscription.stop();
    } finally {
      await short.cleanup();
    }
  });

  it('when many writers append concurrently, then a subscriber sees every event id exactly once, in global order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 8 }),
        fc.integer({ min: 1, max: 20 }),
        async (writers, batchSize) => {
          const start = await settledHead(store);
          const sub = collect(store, start, batchSize);
          const written = await Promise.all(
            writers.map(async (sizes, w) => {
              const ids: string[] = [];
              const hot = `hot-${randomUUID()}`;
              for (const [i, n] of sizes.entries()) {
                const batch = events(n);
                if (i % 2 === 0) {
                  await store.append({ streamId: hot, events: batch, expectedRevision: 'any' });
                } else {
                  const outcomes = await store.appendMany([
                    { streamId: streamName(`w${w}`), events: batch, expectedRevision: 'no_stream' },
                    { streamId: streamName(`w${w}`), events: [newEvent()], expectedRevision: 0n },
                  ]);
                  expect(outcomes[1]).toMatchObject({ name: 'WrongExpectedRevision' });
                }
                ids.push(...batch.map((e) => e.id));
              }
              return ids;
            }),
          );
          const all = written.flat();
          await sub.waitFor((seen) => seen.length >= all.length);
          await pause(50);
          await sub.subscription.stop();
          expect(sub.ids().sort()).toEqual([...all].sort());
          expectStrictlyOrdered(sub.received);
        },
      ),
      { numRuns: 8 },
    );
  });

  it('when appendMany writes several streams, then positions follow the order of the requests in one transaction', async () => {
    const requests = [0, 1, 2].map(() => ({ streamId: streamName(), events: events(2), expectedRevision: 'no_stream' as const }));
    const outcomes = await store.appendMany(requests);
    const read = await Promise.all(requests.map((r) => store.readStream(r.streamId)));
    const positions = read.flat().map((e) => e.position);
    for (let i = 1; i < positions.length; i++) expect(comparePositions(positions[i - 1]!, positions[i]!)).toBe(-1);
    expect(new Set(positions.map((p) => p.commit)).size).toBe(1);
    expect(outcomes.map((o) => ('position' in o ? o.position : undefined))).toEqual(read.map((r) => r.at(-1)!.position));
  });

  it('when two requests of one appendMany share an event id, then the first wins and the second is a duplicate', async () => {
    const shared = newEvent();
    const [a, b] = [streamName(), streamName()];
    const outcomes = await store.appendMany([
      { streamId: a, events: [shared], expectedRevision: 'no_stream' },
      { streamId: b, events: [newEvent(), shared], expectedRevision: 'no_stream' },
      { streamId: streamName(), events: events(1), expectedRevision: 'any' },
    ]);
    expect(outcomes[0]).toMatchObject({ streamId: a, idempotent: false });
    expect(outcomes[1]).toBeInstanceOf(DuplicateEventId);
    expect(outcomes[2]).toMatchObject({ idempotent: false });
    expect(await store.readStream(b)).toEqual([]);
  });

  it('when another process appends, then a subscription wakes on NOTIFY long before its poll interval', async () => {
    const slow = await openStore({ pollIntervalMs: 60_000 });
    const writer = await openStore();
    try {
      const sub = collect(slow.store, await settledHead(slow.store));
      await pause(200); // the LISTEN connection is up
      const started = Date.now();
      await writer.store.append({ streamId: streamName(), events: events(1), expectedRevision: 'any' });
      await sub.waitFor((seen) => seen.length === 1, 5_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      await slow.store.append({ streamId: streamName(), events: events(1), expectedRevision: 'any' });
      await sub.waitFor((seen) => seen.length === 2, 5_000);
      await sub.subscription.stop();
    } finally {
      await Promise.all([slow.cleanup(), writer.cleanup()]);
    }
  });

  it('when the LISTEN connection drops, then the store warns, keeps polling and listens again', async () => {
    const channel = `ledger_test_${randomUUID().slice(0, 8)}`;
    const warnings: object[] = [];
    const listenerPool = db.pool();
    const slow = createPostgresEventStore({
      pool: listenerPool,
      pollIntervalMs: 60_000,
      notifyChannel: channel,
      logger: { warn: (o) => warnings.push(o) },
    });
    const writerPool = db.pool();
    const writer = createPostgresEventStore({ pool: writerPool, notifyChannel: channel });
    try {
      const sub = collect(slow, await settledHead(slow));
      const listening = `SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN "${channel}"'`;
      await vi.waitFor(async () => expect((await pool.query(listening)).rows).toHaveLength(1));
      await pool.query(`SELECT pg_terminate_backend(pid) FROM (${listening}) l`);
      await vi.waitFor(() => expect(warnings).toHaveLength(1));
      await vi.waitFor(async () => expect((await pool.query(listening)).rows).toHaveLength(1), { timeout: 5_000 });
      await writer.append({ streamId: streamName(), events: events(1), expectedRevision: 'any' });
      await sub.waitFor((seen) => seen.length === 1, 5_000);
      await sub.subscription.stop();
      expect((await pool.query(listening)).rows).toHaveLength(0);
    } finally {
      await Promise.all([slow.close(), writer.close()]);
      await Promise.all([listenerPool.end(), writerPool.end()]);
    }
  });

  it('when the store is closed, then its subscriptions end and ping still reaches the pool', async () => {
    const own = await openStore();
    const sub = collect(own.store, await own.store.headPosition());
    await own.store.ping();
    await own.store.close();
    await expect(sub.subscription.done).resolves.toBeUndefined();
    await own.pool.query('SELECT 1');
    await own.pool.end();
  });
});

describe('the follow read', () => {
  it('when a follower reads on the follower settings, then each page size keeps one generic plan along the position index, even while the store is small', async () => {
    const pool = siblingPool(db.pool({ max: 1 }), 1, FOLLOWER_SETTINGS);
    const store = createPostgresEventStore({ pool });
    try {
      const after = await settledHead(store);
      await store.append({ streamId: streamName('follow'), events: events(3), expectedRevision: 'no_stream' });
      for (let i = 0; i < 2; i += 1) {
        expect((await readAllFollowing(pool, after, 2)).events).toHaveLength(2);
        expect((await readAllFollowing(pool, after, 500)).events).toHaveLength(3);
      }
      const client = await pool.connect();
      try {
        const { rows } = await client.query<{ name: string; generic_plans: string }>(
          `SELECT name, generic_plans FROM pg_prepared_statements WHERE name LIKE 'events-following-%' ORDER BY name`,
        );
        expect(rows.map((r) => [r.name, Number(r.generic_plans)])).toEqual([
          ['events-following-2', 2],
          ['events-following-500', 2],
        ]);
        const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE "events-following-500"('0', -1)`);
        const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(text).toContain('Index Scan using events_transaction_position_idx on events');
        expect(text).not.toMatch(/Seq Scan|Bitmap|Sort/);
      } finally {
        client.release();
      }
    } finally {
      await store.close();
      await pool.end();
    }
  });
});

type PlanNode = { 'Actual Rows': number; 'Actual Loops': number; Plans?: PlanNode[] };
const rowsOfEveryNode = (node: PlanNode): number[] => [
  node['Actual Rows'] * node['Actual Loops'],
  ...(node.Plans ?? []).flatMap(rowsOfEveryNode),
];

describe('pages of a long stream', () => {
  const LENGTH = 3_000;
  const PAGE = 100;
  const stream = 'wallet-long';
  let pagesDb: TestDb;
  let pool: pg.Pool;
  let store: EventStore;
  beforeAll(async () => {
    // As a store that grew faster than its statistics: nothing has analysed `events`, so the planner takes the stream for short.
    pagesDb = await createTestDb('event_store_pages');
    pool = pagesDb.pool({ max: 2 });
    await migrateEventStore(pool);
    await pool.query('ALTER TABLE events SET (autovacuum_enabled = false)');
    store = createPostgresEventStore({ pool });
    for (let i = 0; i < LENGTH / 500; i += 1) {
      await store.append({ streamId: stream, events: events(500), expectedRevision: i === 0 ? 'no_stream' : BigInt(i * 500 - 1) });
    }
  });
  afterAll(async () => {
    await store?.close();
    await pool?.end();
    await pagesDb?.drop();
  });

  const pagedForwards = async (size: number): Promise<bigint[]> => {
    const out: bigint[] = [];
    for (let from = 0n; ;) {
      const page = await store.readStream(stream, { fromRevision: from, maxCount: size });
      out.push(...page.map((e) => e.revision));
      if (page.length < size) return out;
      from = page.at(-1)!.revision + 1n;
    }
  };
  const pagedBackwards = async (size: number): Promise<bigint[]> => {
    const out: bigint[] = [];
    for (let from: bigint | undefined; ;) {
      const page = await store.readStreamBackward(stream, { ...(from === undefined ? {} : { fromRevision: from }), maxCount: size });
      out.push(...page.map((e) => e.revision));
      if (page.length < size) return out;
      from = page.at(-1)!.revision - 1n;
    }
  };

  it('when a page of a long stream is read, forwards or backwards, then no step of its plan handles more rows than the page', async () => {
    const queries = [
      readStreamQuery(stream, { fromRevision: 0n, maxCount: PAGE }),
      readStreamQuery(stream, { fromRevision: 1_500n, maxCount: PAGE }),
      readStreamBackwardQuery(stream, { maxCount: PAGE }),
      readStreamBackwardQuery(stream, { fromRevision: 2_000n, maxCount: PAGE }),
      readStreamBackwardQuery(stream, { fromRevision: 99_999n, maxCount: PAGE }),
    ];
    for (const q of queries) {
      const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${q.text}`, q.values);
      const counts = rowsOfEveryNode(rows[0]!['QUERY PLAN'][0].Plan);
      expect(counts[0], q.text).toBe(PAGE);
      expect(Math.max(...counts), q.text).toBeLessThanOrEqual(PAGE);
    }
  });

  it('when a long stream is read page by page, forwards or backwards, then the pages join into the whole stream in order', async () => {
    const whole = (await store.readStream(stream)).map((e) => e.revision);
    expect(whole).toEqual(Array.from({ length: LENGTH }, (_, i) => BigInt(i)));
    expect(await pagedForwards(97)).toEqual(whole);
    expect(await pagedBackwards(97)).toEqual([...whole].reverse());
  });

  it('when revisions are missing from a tampered stream, then pages still read past the holes, as the audit needs', async () => {
    await pool.query(`DELETE FROM events WHERE stream_id = $1 AND (stream_revision BETWEEN 150 AND 160 OR stream_revision = 1700)`, [
      stream,
    ]);
    const left = (await store.readStream(stream)).map((e) => e.revision);
    expect(left).toHaveLength(LENGTH - 12);
    expect(await pagedForwards(97)).toEqual(left);
    expect(await pagedBackwards(97)).toEqual([...left].reverse());
    expect((await store.readStream(stream, { fromRevision: 100n, maxCount: 100 })).map((e) => e.revision).at(-1)).toBe(210n);
  });
});
