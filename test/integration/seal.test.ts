import { isLeft } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { v4 as uuidv4 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { canonicalJson, chainHash, eventHash, GENESIS } from '../../src/audit/seal.hash.js';
import { inspectSeals, startSealer, verifySeals, type SealAnchor, type SealCheckpoint, type SealDifference } from '../../src/audit/seal.js';
import type { createLedger } from '../../src/commands/ledger.js';
import { START, type EventStore, type RecordedEvent } from '../../src/infra/event-store/event-store.port.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { migrateEventStore } from '../../src/infra/event-store/postgres/postgres.migration.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { createLedgerEnv, type LedgerEnv } from '../support/ledger-env.js';
import { seeded } from '../unit/projections/random-wallets.js';
import { migrateNonCore } from '../../src/schema.js';

const KEY = Buffer.alloc(32, 0x5e);
const EVERY = 50;
const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } };
type Ledger = ReturnType<typeof createLedger>;

const must = <T>(result: { _tag: 'Left'; left: unknown } | { _tag: 'Right'; right: T }): T => {
  if (isLeft(result)) throw new Error(JSON.stringify(result.left));
  return result.right;
};

/** Real money commands: a deposit per user, then bets placed and settled (about 14 events per user). */
const play = async (ledger: Ledger, users: readonly number[], betsEach: number, rng: () => number, tag: string): Promise<void> => {
  for (const userId of users) {
    const dep = must(
      await ledger.requestDeposit({
        externalId: `${tag}-${userId}`,
        userId,
        providerId: 'TEST',
        networkId: 'ETH',
        currencyId: 'USDT',
        amount: '500',
      }),
    );
    must(await ledger.completeDeposit(dep.deposit.id, {}));
  }
  for (let i = 0; i < betsEach; i += 1) {
    for (const userId of users) {
      const betId = `${tag}-bet-${userId}-${i}`;
      const amount = `${1 + Math.floor(rng() * 20)}.${Math.floor(rng() * 100)}`;
      must(await ledger.placeBet({ id: betId, userId, roundId: `r-${betId}`, gameId: 7, gameIdentity: game, currencyId: 'USDT', amount }));
      must(await ledger.settleBet(betId, { payout: rng() < 0.5 ? '0' : `${Math.floor(rng() * 40)}.5` }));
    }
  }
};

const count = async (pool: pg.Pool, sql: string, values: unknown[] = []): Promise<number> =>
  Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM (${sql}) AS q`, values)).rows[0]!.n);

/**
 * The sealer's caughtUp() waits for the store's head, which on PostgreSQL is the head readers can see: a commit
 * stays held back while an older writing transaction on the server is open (a parallel test file's, here).
 * Before a test stops its sealers, every committed event must be sealed: wait for that too.
 */
const allSealed = async (pool: pg.Pool, sealers: readonly { caughtUp: () => Promise<void> }[]): Promise<void> => {
  await Promise.all(sealers.map((s) => s.caughtUp()));
  await vi.waitFor(async () => expect(await count(pool, 'SELECT 1 FROM event_seals')).toBe(await count(pool, 'SELECT 1 FROM events')), {
    timeout: 15_000,
    interval: 20,
  });
};

/** Every event has exactly one seal, seq runs 1..n without a gap, and no seal points at a missing event. */
const sealedExactlyOnce = async (pool: pg.Pool): Promise<{ events: number; seals: number; unmatched: number; gaps: number }> => ({
  events: await count(pool, 'SELECT 1 FROM events'),
  seals: await count(pool, 'SELECT 1 FROM event_seals'),
  unmatched: await count(
    pool,
    `
    SELECT 1 FROM events e FULL JOIN event_seals s
      ON s.commit_position = e.transaction_id::text::numeric AND s.prepare_position = e.global_position AND s.event_id = e.event_id
    WHERE e.event_id IS NULL OR s.seq IS NULL`,
  ),
  gaps: await count(pool, 'SELECT 1 FROM event_seals HAVING max(seq) <> count(*) OR min(seq) <> 1'),
});

const readEverything = async (store: EventStore): Promise<RecordedEvent[]> => {
  const all: RecordedEvent[] = [];
  for (let after = START; ;) {
    const batch = await store.readAll({ after, maxCount: 1000 });
    if (batch.length === 0) return all;
    all.push(...batch);
    after = batch.at(-1)!.position;
  }
};

/** What an attacker with database access but without the key can do: run the sealing algorithm again over the events. */
const resealWithoutKey = async (pool: pg.Pool, store: EventStore): Promise<Map<bigint, Buffer>> => {
  const last = new Map<string, Buffer>();
  let chain: Buffer = GENESIS;
  const rows = { seq: [] as string[], prev: [] as string[], hash: [] as string[], chain: [] as string[] };
  const chains = new Map<bigint, Buffer>();
  let seq = 0n;
  for (const e of await readEverything(store)) {
    const prev = last.get(e.streamId) ?? GENESIS;
    const hash = eventHash(prev, e);
    chain = chainHash(chain, hash);
    last.set(e.streamId, hash);
    seq += 1n;
    chains.set(seq, chain);
    rows.seq.push(seq.toString());
    rows.prev.push(prev.toString('hex'));
    rows.hash.push(hash.toString('hex'));
    rows.chain.push(chain.toString('hex'));
  }
  await pool.query(
    `UPDATE event_seals s SET prev_hash = decode(u.prev, 'hex'), hash = decode(u.h, 'hex'), chain_hash = decode(u.ch, 'hex')
     FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS u(seq, prev, h, ch) WHERE s.seq = u.seq`,
    [rows.seq, rows.prev, rows.hash, rows.chain],
  );
  return chains;
};

const only = (differences: readonly SealDifference[], kind: SealDifference['kind']) => differences.filter((d) => d.kind === kind);

describe('canonical form of a sealed event', () => {
  it('when two JSON texts differ only in key order and spacing, then they canonicalise alike; array order still counts', () => {
    expect(canonicalJson({ b: 1, a: [2, { d: null, c: 'x' }], u: undefined })).toBe(
      canonicalJson(JSON.parse('{ "a": [2, {"c": "x", "d": null}], "b": 1 }')),
    );
    expect(canonicalJson({ a: [2, { c: 'x' }], b: 1 })).toBe('{"a":[2,{"c":"x"}],"b":1}');
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });
});

describe('ledger seals (tamper evidence)', () => {
  let env: LedgerEnv;
  let pool: pg.Pool;
  const shipped: SealCheckpoint[] = [];
  const verify = (extra: { checkpointEvery?: number; anchors?: readonly SealAnchor[] } = {}) =>
    verifySeals({ store: env.store, pool: env.pool, key: KEY, ...extra });

  /** Backs up whole tables, lets a test tamper, and restores them byte for byte afterwards. */
  const tampering = async (tables: readonly string[], tamper: () => Promise<void>, check: () => Promise<void>): Promise<void> => {
    for (const t of tables) await pool.query(`CREATE TABLE backup_${t} AS SELECT * FROM ${t}`);
    try {
      await tamper();
      await check();
    } finally {
      for (const t of tables) {
        await pool.query(`DELETE FROM ${t}`);
        await pool.query(`INSERT INTO ${t} SELECT * FROM backup_${t}`);
        await pool.query(`DROP TABLE backup_${t}`);
      }
    }
    expect(await verify({ checkpointEvery: EVERY })).toEqual([]);
  };

  /** A wallet event in the middle of the sealed history (its seal is neither first nor last). */
  const victim = async (type: string, nth: number) =>
    (
      await pool.query<{ global_position: string; stream_id: string; stream_revision: string; transaction_id: string; seq: string }>(
        `SELECT e.global_position::text, e.stream_id, e.stream_revision::text, e.transaction_id::text, s.seq::text
       FROM events e JOIN event_seals s ON s.prepare_position = e.global_position
       WHERE e.type = $1 ORDER BY e.transaction_id, e.global_position OFFSET $2 LIMIT 1`,
        [type, nth],
      )
    ).rows[0]!;

  beforeAll(async () => {
    env = await createLedgerEnv('seal', { ownCluster: true }); // it holds an older transaction open
    pool = env.pool;
    await play(
      env.ledger,
      Array.from({ length: 25 }, (_, i) => i + 1),
      6,
      seeded(7),
      'seal',
    );
    const sealer = startSealer({
      store: env.store,
      pool,
      key: KEY,
      checkpointEvery: EVERY,
      checkpointIntervalMs: 60_000,
      onCheckpoint: (c) => shipped.push(c),
    });
    await allSealed(pool, [sealer]);
    await sealer.stop();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('when a few hundred money commands are sealed, then every event is sealed once and verify finds nothing', async () => {
    const state = await sealedExactlyOnce(pool);
    expect(state.events).toBeGreaterThanOrEqual(300);
    expect(state).toEqual({ events: state.events, seals: state.events, unmatched: 0, gaps: 0 });
    const report = await inspectSeals({ store: env.store, pool, key: KEY, checkpointEvery: EVERY });
    expect(report.differences).toEqual([]);
    expect(report).toMatchObject({ events: state.events, sealed: BigInt(state.events), unsealed: 0, lastCheckpoint: BigInt(state.events) });
    // A checkpoint at every multiple of EVERY, plus the head on stop; each one was handed to onCheckpoint.
    expect(report.checkpoints).toBe(Math.floor(state.events / EVERY) + (state.events % EVERY === 0 ? 0 : 1));
    expect(shipped.map((c) => c.sealedCount)).toEqual(
      (
        await pool.query<{ n: string }>('SELECT sealed_count::text AS n FROM seal_checkpoints ORDER BY seal_checkpoints.sealed_count')
      ).rows.map((r) => BigInt(r.n)),
    );
  });

  it('when an amount is edited in events.data, then verify reports that event as edited', async () => {
    const v = await victim('BetPlaced', 40);
    await tampering(
      ['events'],
      async () => {
        const { rowCount } = await pool.query(
          `UPDATE events SET data = jsonb_set(data, '{amount}', '"9999.99"') WHERE global_position = $1`,
          [v.global_position],
        );
        expect(rowCount).toBe(1);
      },
      async () => {
        const differences = await verify({ checkpointEvery: EVERY });
        expect(differences).toEqual([
          expect.objectContaining({
            kind: 'edited',
            streamId: v.stream_id,
            revision: v.stream_revision,
            position: `${v.transaction_id}/${v.global_position}`,
          }),
        ]);
      },
    );
  });

  it('when an event is deleted, then verify reports its seal as deleted, naming the stream and revision', async () => {
    const v = await victim('DepositCompleted', 10);
    await tampering(
      ['events'],
      async () => {
        await pool.query('DELETE FROM events WHERE global_position = $1', [v.global_position]);
      },
      async () => {
        const differences = await verify({ checkpointEvery: EVERY });
        expect(differences).toEqual([
          expect.objectContaining({
            kind: 'deleted',
            streamId: v.stream_id,
            revision: v.stream_revision,
            position: `${v.transaction_id}/${v.global_position}`,
          }),
        ]);
      },
    );
  });

  it('when an event is deleted together with its seal, then the missing seal and the broken stream chain are reported', async () => {
    const v = await victim('BetSettled', 12);
    await tampering(
      ['events', 'event_seals'],
      async () => {
        await pool.query('DELETE FROM events WHERE global_position = $1', [v.global_position]);
        await pool.query('DELETE FROM event_seals WHERE seq = $1', [v.seq]);
      },
      async () => {
        const differences = await verify({ checkpointEvery: EVERY });
        expect(only(differences, 'deleted')).toEqual([expect.objectContaining({ detail: expect.stringContaining(`#${v.seq}`) })]);
        expect(only(differences, 'chain-broken')).toContainEqual(
          expect.objectContaining({ streamId: v.stream_id, revision: String(Number(v.stream_revision) + 1) }),
        );
      },
    );
  });

  it('when a forged event is inserted inside the sealed history (a free revision at the end of a stream), then verify reports it as inserted', async () => {
    const v = await victim('DepositCompleted', 5);
    await tampering(
      ['events'],
      async () => {
        // Backdated: the writing transaction id of a sealed event puts the forgery between sealed events.
        const { rows } = await pool.query<{ stream_revision: string }>(
          `INSERT INTO events (transaction_id, stream_id, stream_revision, event_id, type, data, metadata, created_at)
         SELECT e.transaction_id, e.stream_id, (SELECT max(stream_revision) + 1 FROM events WHERE stream_id = e.stream_id),
           $2, e.type, jsonb_set(e.data, '{amount}', '"250000"'), e.metadata, e.created_at
         FROM events e WHERE e.global_position = $1 RETURNING stream_revision::text`,
          [v.global_position, uuidv4()],
        );
        v.stream_revision = rows[0]!.stream_revision;
      },
      async () => {
        const differences = await verify({ checkpointEvery: EVERY });
        expect(differences).toEqual([expect.objectContaining({ kind: 'inserted', streamId: v.stream_id, revision: v.stream_revision })]);
      },
    );
  });

  it('when a duplicate-looking event takes a revision that is already sealed, then verify reports it as inserted', async () => {
    const v = await victim('BetPlaced', 20);
    await tampering(
      ['events'],
      async () => {
        await pool.query('ALTER TABLE events DROP CONSTRAINT events_stream_id_stream_revision_key');
        await pool.query(
          `INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata, created_at)
         SELECT stream_id, stream_revision, $2, type, data, metadata, created_at FROM events WHERE global_position = $1`,
          [v.global_position, uuidv4()],
        );
      },
      async () => {
        const differences = await verify({ checkpointEvery: EVERY });
        expect(differences).toEqual([expect.objectContaining({ kind: 'inserted', streamId: v.stream_id, revision: v.stream_revision })]);
      },
    );
    await pool.query('ALTER TABLE events ADD CONSTRAINT events_stream_id_stream_revision_key UNIQUE (stream_id, stream_revision)');
  });

  it('when an event is appended behind the stopped sealer, then it is counted as unsealed, not reported (the documented window)', async () => {
    await tampering(
      ['events'],
      async () => {
        await pool.query(
          `INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata)
         SELECT stream_id, stream_revision + 1, $1, type, data, metadata FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
          [uuidv4()],
        );
      },
      async () => {
        const report = await inspectSeals({ store: env.store, pool, key: KEY, checkpointEvery: EVERY });
        expect(report.differences).toEqual([]);
        expect(report.unsealed).toBe(1);
      },
    );
  });

  /** What another test file (or any client) does to the whole cluster: an xid held open hides later commits from readAll. */
  const withOlderTransactionOpen = async (run: () => Promise<void>): Promise<void> => {
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()');
      await run();
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  };

  it('when an event is appended behind the stopped sealer while an older transaction of the cluster is still open, then it is still counted as unsealed', async () => {
    await withOlderTransactionOpen(() =>
      tampering(
        ['events'],
        async () => {
          await pool.query(
            `INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata)
         SELECT stream_id, stream_revision + 1, $1, type, data, metadata FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
            [uuidv4()],
          );
        },
        async () => {
          const report = await inspectSeals({ store: env.store, pool, key: KEY, checkpointEvery: EVERY });
          expect(report.differences).toEqual([]);
          expect(report.unsealed).toBe(1);
        },
      ),
    );
  });

  it('when a duplicate-looking event takes a sealed revision while an older transaction of the cluster is still open, then verify still reports it as inserted', async () => {
    const v = await victim('BetPlaced', 21);
    await withOlderTransactionOpen(() =>
      tampering(
        ['events'],
        async () => {
          await pool.query('ALTER TABLE events DROP CONSTRAINT events_stream_id_stream_revision_key');
          await pool.query(
            `INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata, created_at)
         SELECT stream_id, stream_revision, $2, type, data, metadata, created_at FROM events WHERE global_position = $1`,
            [v.global_position, uuidv4()],
          );
        },
        async () => {
          const differences = await verify({ checkpointEvery: EVERY });
          expect(differences).toEqual([expect.objectContaining({ kind: 'inserted', streamId: v.stream_id, revision: v.stream_revision })]);
        },
      ),
    );
    await pool.query('ALTER TABLE events ADD CONSTRAINT events_stream_id_stream_revision_key UNIQUE (stream_id, stream_revision)');
  });

  it('when a seal row is edited, then verify reports the broken chain at that seal', async () => {
    const v = await victim('BetPlaced', 33);
    await tampering(
      ['event_seals'],
      async () => {
        await pool.query(`UPDATE event_seals SET chain_hash = sha256(chain_hash) WHERE seq = $1`, [v.seq]);
      },
      async () => {
        const differences = await verify({ checkpointEvery: EVERY });
        expect(only(differences, 'chain-broken')).toContainEqual(
          expect.objectContaining({ streamId: v.stream_id, revision: v.stream_revision, detail: expect.stringContaining(`#${v.seq}:`) }),
        );
        expect(only(differences, 'edited')).toEqual([]);
      },
    );
  });

  describe('an attacker who edits an event and recomputes its seal and every later hash, without the key', () => {
    let v: Awaited<ReturnType<typeof victim>>;
    const rewrite = async (): Promise<Map<bigint, Buffer>> => {
      v = await victim('BetPlaced', 8);
      await pool.query(`UPDATE events SET data = jsonb_set(data, '{amount}', '"0.01"') WHERE global_position = $1`, [v.global_position]);
      return resealWithoutKey(pool, env.store);
    };

    it('when the checkpoints are left alone, then the first checkpoint after the edit no longer matches the chain', async () => {
      await tampering(
        ['events', 'event_seals'],
        async () => {
          await rewrite();
        },
        async () => {
          const differences = await verify({ checkpointEvery: EVERY });
          expect(differences.length).toBeGreaterThan(0);
          expect(new Set(differences.map((d) => d.kind))).toEqual(new Set(['checkpoint-forged']));
          const firstAfter = Math.ceil(Number(v.seq) / EVERY) * EVERY;
          expect(differences[0]!.detail).toContain(`sealed count ${firstAfter} no longer matches`);
        },
      );
    });

    it('when the checkpoints are rewritten to the new chain, then their MACs give it away', async () => {
      await tampering(
        ['events', 'event_seals', 'seal_checkpoints'],
        async () => {
          const chains = await rewrite();
          for (const [n, chain] of chains)
            await pool.query('UPDATE seal_checkpoints SET chain_hash = $2 WHERE sealed_count = $1', [n.toString(), chain]);
        },
        async () => {
          const differences = await verify({ checkpointEvery: EVERY });
          expect(new Set(differences.map((d) => d.kind))).toEqual(new Set(['checkpoint-forged']));
          const rewritten = await count(pool, 'SELECT 1 FROM seal_checkpoints WHERE sealed_count >= $1', [v.seq]);
          expect(rewritten).toBeGreaterThan(0);
          expect(differences.filter((d) => d.detail.includes('MAC does not match'))).toHaveLength(rewritten);
        },
      );
    });

    it('when the checkpoints after the edit are deleted, then the uncovered tail is reported, and an off-box anchor catches it too', async () => {
      await tampering(
        ['events', 'event_seals', 'seal_checkpoints'],
        async () => {
          await rewrite();
          await pool.query('DELETE FROM seal_checkpoints WHERE sealed_count >= $1', [v.seq]);
        },
        async () => {
          expect(only(await verify({ checkpointEvery: EVERY }), 'checkpoint-forged')).toEqual([
            expect.objectContaining({ detail: expect.stringContaining('checkpoints were removed') }),
          ]);
          // Without the interval nothing in this database is left to contradict the rewrite: only an anchor kept elsewhere does.
          expect(await verify()).toEqual([]);
          const anchors = shipped.map((c) => ({
            sealedCount: c.sealedCount,
            position: c.position,
            chainHash: c.chainHash.toString('hex'),
          }));
          expect((await verify({ anchors })).some((d) => d.kind === 'checkpoint-forged' && d.detail.startsWith('off-box anchor'))).toBe(
            true,
          );
        },
      );
    });
  });

  it('when the newest seals are removed, then the checkpoint beyond them gives it away', async () => {
    await tampering(
      ['event_seals'],
      async () => {
        await pool.query('DELETE FROM event_seals WHERE seq > (SELECT max(seq) - 5 FROM event_seals)');
      },
      async () => {
        const report = await inspectSeals({ store: env.store, pool, key: KEY });
        expect(report.unsealed).toBe(5);
        expect(report.differences.length).toBeGreaterThan(0);
        expect(report.differences.every((d) => d.kind === 'checkpoint-forged' && d.detail.includes('seals were removed'))).toBe(true);
      },
    );
  });

  it('when the ledger keeps taking money commands from two processes, then the sealer keeps up and seals each event once', async () => {
    const sealer = startSealer({ store: env.store, pool, key: KEY, checkpointEvery: EVERY, batchSize: 25 });
    const other = env.secondProcess();
    await Promise.all([
      play(env.ledger, [101, 102, 103], 8, seeded(11), 'live-a'),
      play(other, [201, 202, 203], 8, seeded(12), 'live-b'),
      play(env.ledger, [301, 302], 8, seeded(13), 'live-c'),
    ]);
    await allSealed(pool, [sealer]);
    await sealer.stop();
    const state = await sealedExactlyOnce(pool);
    expect(state).toEqual({ events: state.events, seals: state.events, unmatched: 0, gaps: 0 });
    const report = await inspectSeals({ store: env.store, pool, key: KEY, checkpointEvery: EVERY });
    expect(report.differences).toEqual([]);
    expect(report.unsealed).toBe(0);
  });
});

describe('ledger sealer crashes', () => {
  let db: TestDb;
  let pool: pg.Pool;
  let store: EventStore;
  beforeAll(async () => {
    db = await createTestDb('seal_crash', { ownCluster: true }); // it kills sealers' backends mid-transaction
    pool = db.pool();
    await migrateEventStore(pool);
    await migrateNonCore(pool);
    store = createPostgresEventStore({ pool, pollIntervalMs: 20 });
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  const appendSynthetic = async (batches: number, streams: number, rng: () => number): Promise<void> => {
    for (let b = 0; b < batches; b += 1) {
      const requests = Array.from({ length: streams }, (_, s) => ({
        streamId: `crash-${s}`,
        expectedRevision: 'any' as const,
        events: Array.from({ length: 1 + Math.floor(rng() * 3) }, () => ({
          id: uuidv4(),
          type: 'Noted',
          data: { amount: `${Math.floor(rng() * 1e6)}.25`, b },
        })),
      }));
      await store.appendMany(requests);
    }
  };

  it('when sealers are killed mid-batch again and again, run twice at once and restarted, then every event is sealed exactly once', async () => {
    const rng = seeded(99);
    await appendSynthetic(40, 30, rng);
    // Inside the batch transaction, after the seals were written: kill the connection (or fail) now and then.
    await pool.query(`
      CREATE FUNCTION seal_chaos() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF random() < 0.15 THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
        IF random() < 0.15 THEN RAISE EXCEPTION 'chaos'; END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER seal_chaos BEFORE INSERT ON seal_checkpoints FOR EACH STATEMENT EXECUTE FUNCTION seal_chaos();`);
    let failures = 0;
    const start = (name: string) => {
      const p = db.pool({ applicationName: name });
      p.on('error', () => undefined);
      return startSealer({
        store,
        pool: p,
        key: KEY,
        checkpointEvery: 7,
        batchSize: 53,
        retryDelayMs: 1,
        onFailure: () => {
          failures += 1;
        },
      });
    };
    const first = start('sealer-a');
    const second = start('sealer-b');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await first.stop();
    await appendSynthetic(20, 30, rng);
    const third = start('sealer-c');
    await allSealed(pool, [second, third]);
    await Promise.all([second.stop(), third.stop()]);
    await pool.query('DROP TRIGGER seal_chaos ON seal_checkpoints');

    expect(failures).toBeGreaterThan(0);
    const state = await sealedExactlyOnce(pool);
    expect(state.events).toBeGreaterThan(2000);
    expect(state).toEqual({ events: state.events, seals: state.events, unmatched: 0, gaps: 0 });
    // Checkpoints at every multiple of 7 survived the chaos (each was written with its batch or not at all).
    const missing = await count(
      pool,
      `SELECT n FROM generate_series(7, (SELECT max(seq) FROM event_seals), 7) AS n
      WHERE n NOT IN (SELECT sealed_count FROM seal_checkpoints)`,
    );
    expect(missing).toBe(0);
    expect(await verifySeals({ store, pool, key: KEY })).toEqual([]);
  });

  it('when verify runs with another key, then the key is named once, not every checkpoint as forged', async () => {
    const checkpoints = await count(pool, 'SELECT 1 FROM seal_checkpoints');
    expect(checkpoints).toBeGreaterThan(1);
    const differences = await verifySeals({ store, pool, key: Buffer.alloc(32, 1), checkpointEvery: EVERY });
    expect(differences).toEqual([
      expect.objectContaining({ kind: 'seal-key', detail: expect.stringContaining(`matches none of the ${checkpoints} checkpoints`) }),
    ]);
  });
});
