import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DuplicateEventId,
  GuardRefused,
  KeyOwnedElsewhere,
  WrongExpectedRevision,
  type AppendOutcome,
  type AppendRequest,
  type AppendResult,
  type EventStore,
} from '../../src/infra/event-store/event-store.port.js';
import { appendOutcomes } from '../../src/infra/event-store/postgres/postgres.append.js';
import { BET_GUARD } from '../../src/commands/bet-guard.js';
import { createPostgresEventStore, WRITER_SETTINGS } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { siblingPool } from '../../src/infra/pg.js';
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

  it('when one request names a stale revision, then it is WrongExpectedRevision and takes no key; the others are written with theirs', async () => {
    const [a, b] = [await existing(2), await existing()];
    const [stale, fresh] = [`stale-${Date.now()}`, `fresh-${Date.now()}`];
    const outcomes = await store.appendMany([
      { streamId: a.streamId, events: events(1), expectedRevision: a.revision - 1n, claims: [{ kind: 'bet', key: stale, owner: 1 }] },
      { streamId: b.streamId, events: events(1), expectedRevision: b.revision, claims: [{ kind: 'bet', key: fresh, owner: 2 }] },
    ]);
    expect(outcomes[0]).toBeInstanceOf(WrongExpectedRevision);
    written(outcomes[1]);
    expect([await ownerOf(stale), await ownerOf(fresh)]).toEqual([undefined, '2']);
    expect([await count(a.streamId), await count(b.streamId)]).toEqual([2, 2]);
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
    const guard = [{ rule: BET_GUARD, userId: banned, usdAmount: '1.5', at: new Date() }];
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
        guards: [{ rule: BET_GUARD, userId: 7_002, usdAmount: '1.5', at: new Date() }],
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

describe('a lone request of one event at its exact revision', () => {
  // One connection, so its prepared statements' execution counts tell which statements answered.
  let writer: pg.Pool;
  beforeAll(() => {
    writer = siblingPool(pool, 1, WRITER_SETTINGS);
  });
  afterAll(() => writer.end());
  const executions = async () =>
    new Map(
      (
        await writer.query<{ name: string; n: string }>('SELECT name, generic_plans + custom_plans AS n FROM pg_prepared_statements')
      ).rows.map((r) => [r.name, Number(r.n)]),
    );
  const lone = async (request: AppendRequest): Promise<{ outcome: AppendOutcome; ran: string[] }> => {
    const before = await executions();
    const [outcome] = await appendOutcomes(writer, [request]);
    const after = await executions();
    return {
      outcome: outcome!,
      ran: [...after]
        .filter(([name, n]) => n > (before.get(name) ?? 0))
        .map(([name]) => name)
        .sort(),
    };
  };
  const bet = (s: { streamId: string; revision: bigint }, owner: number, key: string): AppendRequest => ({
    streamId: s.streamId,
    events: events(1),
    expectedRevision: s.revision,
    claims: [{ kind: 'bet', key, owner }],
    guards: [{ rule: BET_GUARD, userId: owner, usdAmount: '1.5', at: new Date() }],
  });

  it('when it is fresh, then the solo statement alone writes it at the next revision and claims its key', async () => {
    const s = await existing(2);
    const key = `solo-${Date.now()}`;
    const { outcome, ran } = await lone(bet(s, 8_001, key));
    expect(written(outcome).nextExpectedRevision).toBe(s.revision + 1n);
    expect(ran).toEqual(['ledger-append-solo-bet-guard']);
    expect(await ownerOf(key)).toBe('8001');
    const plain = await existing();
    expect((await lone({ streamId: plain.streamId, events: events(1), expectedRevision: plain.revision })).ran).toEqual([
      'ledger-append-solo',
    ]);
    expect(await count(plain.streamId)).toBe(2);
  });

  it('when its revision is stale, then it is WrongExpectedRevision with the head, and its key is not taken', async () => {
    const s = await existing(3);
    const key = `stale-${Date.now()}`;
    const { outcome } = await lone({ ...bet(s, 8_002, key), expectedRevision: s.revision - 1n });
    expect(outcome).toBeInstanceOf(WrongExpectedRevision);
    expect(outcome).toMatchObject({ actual: s.revision });
    expect([await count(s.streamId), await ownerOf(key)]).toEqual([3, undefined]);
  });

  it('when it is retried after it was stored, then the first result comes back and nothing is written twice', async () => {
    const s = await existing();
    const request = bet(s, 8_003, `retry-${Date.now()}`);
    const first = written((await lone(request)).outcome);
    const again = await lone(request);
    expect(again.outcome).toEqual({ ...first, idempotent: true });
    expect(again.ran).toEqual(['ledger-append-solo-bet-guard']);
    expect(await count(s.streamId)).toBe(2);
  });

  it("when its event id is stored in another stream or its key is another owner's, then it is refused and nothing is written", async () => {
    const [a, b] = [await existing(), await existing()];
    const stored = (await store.readStream(a.streamId))[0]!;
    const duplicate = await lone({ streamId: b.streamId, events: [{ ...newEvent(), id: stored.id }], expectedRevision: b.revision });
    expect(duplicate.outcome).toBeInstanceOf(DuplicateEventId);
    const key = `owned-${Date.now()}`;
    written((await lone(bet(a, 8_004, key))).outcome);
    const clash = await lone(bet(b, 8_005, key));
    expect(clash.outcome).toBeInstanceOf(KeyOwnedElsewhere);
    expect(clash.outcome).toMatchObject({ claims: [{ kind: 'bet', key, owner: 8_004 }] });
    expect([await count(a.streamId), await count(b.streamId), await ownerOf(key)]).toEqual([2, 1, '8004']);
  });

  it('when the player is banned, self-excluded or over his bet limit, then GuardRefused takes no key; a retry of a bet stored before is the retry', async () => {
    const [banned, excluded, limited] = [8_006, 8_007, 8_008];
    const s = await existing();
    const before = bet(s, banned, `before-${Date.now()}`);
    const first = written((await lone(before)).outcome);
    await pool.query(
      `INSERT INTO user_access (user_id, revision, state, roles, permissions, is_banned) VALUES ($1, 0, '{}', '{}', '{}', true)`,
      [banned],
    );
    const until = new Date(Date.now() + 3_600_000).toISOString();
    await pool.query(`INSERT INTO user_limits (user_id, revision, state) VALUES ($1, 0, $2), ($3, 0, $4)`, [
      excluded,
      { exclusion: { expiresAt: until } },
      limited,
      { betLimit: { betLimit: '1.0' } },
    ]);
    for (const userId of [banned, excluded, limited]) {
      const key = `guarded-${userId}-${Date.now()}`;
      const refused = await lone(bet(await existing(), userId, key));
      expect(refused.outcome).toBeInstanceOf(GuardRefused);
      // The append says which rule refused the bet: no second reading of the limits is needed to name it.
      expect((refused.outcome as GuardRefused).refusals?.[0]).toMatch(
        userId === banned ? /^banned$/ : userId === excluded ? /^self-excluded \d{4}-/ : /^bet-limit 1\.0$/,
      );
      expect(refused.ran).toEqual(['ledger-append-solo-bet-guard']);
      expect(await ownerOf(key)).toBeUndefined();
    }
    expect(
      (
        await lone({
          ...bet(await existing(), limited, `under-${Date.now()}`),
          guards: [{ rule: BET_GUARD, userId: limited, usdAmount: '0.5', at: new Date() }],
        })
      ).outcome,
    ).toMatchObject({ idempotent: false });
    expect((await lone(before)).outcome).toEqual({ ...first, idempotent: true });
    expect(await count(s.streamId)).toBe(2);
  });
});
