import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DuplicateEventId,
  GuardRefused,
  KeyOwnedElsewhere,
  type AppendRequest,
  type AppendResult,
  type EventStore,
} from '../../src/infra/event-store/event-store.port.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { migrateAll } from '../../src/schema.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { events, newEvent, streamName } from './event-store.contract.js';

// Batches whose requests all name an exact revision take a lean statement that leaves stored ids and taken keys to the unique
// indexes; whatever it cannot settle must come out exactly as the full statement answers it, the other requests written once.
let db: TestDb;
let pool: pg.Pool;
let store: EventStore;
beforeAll(async () => {
  db = await createTestDb('exact_appends');
  pool = db.pool();
  await migrateAll(pool);
  store = createPostgresEventStore({ pool });
});
afterAll(async () => {
  await store?.close();
  await db.drop();
});

/** A stream with `n` events, and the revision its next append expects. */
const existing = async (n = 1): Promise<{ streamId: string; revision: bigint }> => {
  const streamId = streamName('exact');
  const written = await store.append({ streamId, events: events(n), expectedRevision: 'no_stream' });
  return { streamId, revision: written.nextExpectedRevision };
};
const written = (outcome: unknown): AppendResult => {
  expect(outcome).toMatchObject({ idempotent: false });
  return outcome as AppendResult;
};
const count = async (streamId: string) => (await store.readStream(streamId)).length;
const ownerOf = async (key: string) =>
  (await pool.query<{ user_id: string }>(`SELECT user_id FROM ledger_keys WHERE kind = 'bet' AND key = $1`, [key])).rows[0]?.user_id;

describe('appends whose requests all name their exact revision', () => {
  it('when every request is fresh, then all are written in one transaction at the revisions they named', async () => {
    const streams = [await existing(1), await existing(3), await existing(2)];
    const outcomes = await store.appendMany(
      streams.map((s) => ({ streamId: s.streamId, events: events(2), expectedRevision: s.revision })),
    );
    const results = outcomes.map(written);
    expect(results.map((r) => r.nextExpectedRevision)).toEqual(streams.map((s) => s.revision + 2n));
    expect(new Set(results.map((r) => r.position.commit)).size).toBe(1);
    expect(await Promise.all(streams.map((s) => count(s.streamId)))).toEqual([3, 5, 4]);
  });

  it('when one request carries an id stored in another stream, then it is DuplicateEventId and the others are written once', async () => {
    const [a, b, c] = [await existing(), await existing(), await existing()];
    const stored = (await store.readStream(a.streamId))[0]!;
    const outcomes = await store.appendMany([
      { streamId: b.streamId, events: events(1), expectedRevision: b.revision },
      { streamId: c.streamId, events: [newEvent(), { ...newEvent(), id: stored.id }], expectedRevision: c.revision },
      { streamId: a.streamId, events: events(1), expectedRevision: a.revision },
    ]);
    written(outcomes[0]);
    expect(outcomes[1]).toBeInstanceOf(DuplicateEventId);
    written(outcomes[2]);
    expect([await count(a.streamId), await count(b.streamId), await count(c.streamId)]).toEqual([2, 2, 1]);
  });

  it('when a request is retried after its events were stored, then the first result comes back beside a fresh request', async () => {
    const [a, b] = [await existing(), await existing()];
    const retried: AppendRequest = { streamId: a.streamId, events: events(2), expectedRevision: a.revision };
    const first = await store.append(retried);
    const outcomes = await store.appendMany([retried, { streamId: b.streamId, events: events(1), expectedRevision: b.revision }]);
    expect(outcomes[0]).toEqual({ ...first, idempotent: true });
    written(outcomes[1]);
    expect([await count(a.streamId), await count(b.streamId)]).toEqual([3, 2]);
  });

  it("when a request claims another owner's key, then it is KeyOwnedElsewhere; a fresh key and the owner's own key are written", async () => {
    const [taken, mine] = [`taken-${Date.now()}`, `mine-${Date.now()}`];
    const [a, b, c] = [await existing(), await existing(), await existing()];
    await store.append({
      streamId: a.streamId,
      events: events(1),
      expectedRevision: a.revision,
      claims: [{ kind: 'bet', key: taken, owner: 1 }],
    });
    await store.append({
      streamId: c.streamId,
      events: events(1),
      expectedRevision: c.revision,
      claims: [{ kind: 'bet', key: mine, owner: 3 }],
    });
    const fresh = `fresh-${Date.now()}`;
    const outcomes = await store.appendMany([
      { streamId: b.streamId, events: events(1), expectedRevision: b.revision, claims: [{ kind: 'bet', key: taken, owner: 2 }] },
      { streamId: a.streamId, events: events(1), expectedRevision: a.revision + 1n, claims: [{ kind: 'bet', key: fresh, owner: 1 }] },
      { streamId: c.streamId, events: events(1), expectedRevision: c.revision + 1n, claims: [{ kind: 'bet', key: mine, owner: 3 }] },
    ]);
    expect(outcomes[0]).toBeInstanceOf(KeyOwnedElsewhere);
    expect(outcomes[0]).toMatchObject({ claims: [{ kind: 'bet', key: taken, owner: 1 }] });
    written(outcomes[1]);
    written(outcomes[2]);
    expect([await count(a.streamId), await count(b.streamId), await count(c.streamId)]).toEqual([3, 1, 3]);
    expect([await ownerOf(taken), await ownerOf(fresh), await ownerOf(mine)]).toEqual(['1', '1', '3']);
  });

  it('when a banned player bets, then GuardRefused writes nothing and takes no key; his retry of a bet stored before the ban is answered as the retry', async () => {
    const banned = 7_001;
    const [a, b, c] = [await existing(), await existing(), await existing()];
    const before: AppendRequest = { streamId: c.streamId, events: events(1), expectedRevision: c.revision };
    const first = await store.append(before);
    await pool.query(
      `INSERT INTO user_access (user_id, revision, state, roles, permissions, is_banned) VALUES ($1, 0, '{}', '{}', '{}', true)`,
      [banned],
    );
    const guard = [{ userId: banned, usdAmount: '1.5', at: new Date() }];
    const key = `banned-${Date.now()}`;
    const outcomes = await store.appendMany([
      {
        streamId: a.streamId,
        events: events(1),
        expectedRevision: a.revision,
        guards: guard,
        claims: [{ kind: 'bet', key, owner: banned }],
      },
      {
        streamId: b.streamId,
        events: events(1),
        expectedRevision: b.revision,
        guards: [{ userId: 7_002, usdAmount: '1.5', at: new Date() }],
      },
      { ...before, guards: guard },
    ]);
    expect(outcomes[0]).toBeInstanceOf(GuardRefused);
    written(outcomes[1]);
    expect(outcomes[2]).toEqual({ ...first, idempotent: true });
    expect([await count(a.streamId), await count(b.streamId), await count(c.streamId)]).toEqual([1, 2, 2]);
    expect(await ownerOf(key)).toBeUndefined();
  });
});
