import type pg from 'pg';
import {
  DuplicateEventId,
  WrongExpectedRevision,
  type AppendOutcome,
  type AppendRequest,
  type AppendResult,
} from '../event-store.port.js';

/**
 * One statement appends to many distinct streams (group commit). Each stream's head row is moved with
 * a compare-and-set (UPDATE ... WHERE revision = expected, or INSERT ... ON CONFLICT DO NOTHING), so a
 * concurrent writer at the same revision loses; only the winners' events are inserted, in input order.
 * Requests whose event ids are already stored are left out and resolved afterwards (idempotent retry).
 */
const APPEND_SQL = `
WITH req AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::int[]) WITH ORDINALITY AS r(stream_id, kind, expected, n, ord)
), ev AS (
  SELECT * FROM unnest($5::int[], $6::int[], $7::uuid[], $8::text[], $9::text[], $10::text[]) WITH ORDINALITY
    AS e(req, idx, event_id, type, data, metadata, ord)
), candidates AS (
  SELECT * FROM req WHERE ord NOT IN (SELECT ev.req FROM ev JOIN events USING (event_id))
), exact AS (
  UPDATE streams s SET revision = s.revision + c.n FROM candidates c
  WHERE c.kind = 'exact' AND s.stream_id = c.stream_id AND s.revision = c.expected
  RETURNING s.stream_id, s.revision
), fresh AS (
  INSERT INTO streams (stream_id, revision) SELECT stream_id, n - 1 FROM candidates WHERE kind = 'no_stream'
  ON CONFLICT (stream_id) DO NOTHING RETURNING stream_id, revision
), anyone AS (
  INSERT INTO streams AS s (stream_id, revision) SELECT stream_id, n - 1 FROM candidates WHERE kind = 'any'
  ON CONFLICT (stream_id) DO UPDATE SET revision = s.revision + excluded.revision + 1 RETURNING stream_id, revision
), winners AS (
  SELECT * FROM exact UNION ALL SELECT * FROM fresh UNION ALL SELECT * FROM anyone
), written AS (
  INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata)
  SELECT w.stream_id, w.revision - r.n + ev.idx, ev.event_id, ev.type, ev.data::jsonb, ev.metadata::jsonb
  FROM ev JOIN req r ON r.ord = ev.req JOIN winners w ON w.stream_id = r.stream_id
  ORDER BY ev.ord
  RETURNING stream_id, stream_revision, global_position
)
SELECT stream_id, max(stream_revision)::text AS revision, max(global_position)::text AS global_position,
  pg_current_xact_id()::text AS transaction_id
FROM written GROUP BY stream_id`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const validate = (requests: readonly AppendRequest[]): void => {
  const streams = new Set<string>();
  for (const r of requests) {
    if (streams.has(r.streamId)) throw new TypeError(`appendMany: stream ${r.streamId} appears twice`);
    streams.add(r.streamId);
    if (r.events.length === 0) throw new TypeError(`append to ${r.streamId}: no events`);
    const ids = new Set(r.events.map((e) => e.id.toLowerCase()));
    if (ids.size !== r.events.length) throw new TypeError(`append to ${r.streamId}: an event id appears twice`);
    const bad = r.events.find((e) => !UUID.test(e.id));
    if (bad) throw new TypeError(`append to ${r.streamId}: event id ${bad.id} is not a uuid`);
    if (typeof r.expectedRevision === 'bigint' && r.expectedRevision < 0n) {
      throw new TypeError(`append to ${r.streamId}: expected revision ${r.expectedRevision} is negative`);
    }
  }
};

const params = (requests: readonly AppendRequest[]): unknown[] => {
  const p: [string[], string[], (string | null)[], number[], number[], number[], string[], string[], string[], string[]] =
    [[], [], [], [], [], [], [], [], [], []];
  requests.forEach((r, i) => {
    const e = r.expectedRevision;
    p[0].push(r.streamId);
    p[1].push(typeof e === 'bigint' ? 'exact' : e);
    p[2].push(typeof e === 'bigint' ? e.toString() : null);
    p[3].push(r.events.length);
    r.events.forEach((ev, j) => {
      p[4].push(i + 1);
      p[5].push(j + 1);
      p[6].push(ev.id);
      p[7].push(ev.type);
      p[8].push(JSON.stringify(ev.data));
      p[9].push(JSON.stringify(ev.metadata ?? {}));
    });
  });
  return p;
};

type WinnerRow = { stream_id: string; revision: string; global_position: string; transaction_id: string };
type StoredRow = { event_id: string; stream_id: string; stream_revision: string; global_position: string; transaction_id: string };

/** A request that did not win: an idempotent retry, a duplicate id, or a concurrency conflict. */
const resolveLosers = async (pool: pg.Pool, losers: readonly AppendRequest[]): Promise<Map<AppendRequest, AppendOutcome>> => {
  const [stored, heads] = await Promise.all([
    pool.query<StoredRow>(
      `SELECT event_id::text AS event_id, stream_id, stream_revision, global_position, transaction_id::text AS transaction_id
       FROM events WHERE event_id = ANY($1::uuid[])`,
      [losers.flatMap((r) => r.events.map((e) => e.id))],
    ),
    pool.query<{ stream_id: string; revision: string }>(`SELECT stream_id, revision FROM streams WHERE stream_id = ANY($1::text[])`, [
      losers.map((r) => r.streamId),
    ]),
  ]);
  const byId = new Map(stored.rows.map((row) => [row.event_id, row]));
  const headOf = new Map(heads.rows.map((row) => [row.stream_id, BigInt(row.revision)]));
  const outcomes = new Map<AppendRequest, AppendOutcome>();
  for (const r of losers) {
    const found = r.events.flatMap((e) => byId.get(e.id.toLowerCase()) ?? []);
    if (found.length === 0) {
      outcomes.set(r, new WrongExpectedRevision(r.streamId, r.expectedRevision, headOf.get(r.streamId) ?? 'no_stream'));
    } else if (found.length === r.events.length && found.every((row) => row.stream_id === r.streamId)) {
      const last = found.reduce((a, b) => (BigInt(b.stream_revision) > BigInt(a.stream_revision) ? b : a));
      outcomes.set(r, {
        streamId: r.streamId,
        nextExpectedRevision: BigInt(last.stream_revision),
        position: { commit: BigInt(last.transaction_id), prepare: BigInt(last.global_position) },
        idempotent: true,
      });
    } else {
      outcomes.set(r, new DuplicateEventId(r.streamId, found.map((row) => row.event_id)));
    }
  }
  return outcomes;
};

const runStatement = async (pool: pg.Pool, requests: readonly AppendRequest[]): Promise<AppendOutcome[]> => {
  const { rows } = await pool.query<WinnerRow>(APPEND_SQL, params(requests));
  const won = new Map(rows.map((row) => [row.stream_id, row]));
  const losers = requests.filter((r) => !won.has(r.streamId));
  const lost = losers.length > 0 ? await resolveLosers(pool, losers) : new Map<AppendRequest, AppendOutcome>();
  return requests.map((r): AppendOutcome => {
    const row = won.get(r.streamId);
    if (!row) return lost.get(r)!;
    const result: AppendResult = {
      streamId: r.streamId,
      nextExpectedRevision: BigInt(row.revision),
      position: { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) },
      idempotent: false,
    };
    return result;
  });
};

const sqlState = (error: unknown): string | undefined => (error as { code?: string } | null)?.code;
const UNIQUE_VIOLATION = '23505';
const DEADLOCK = '40P01';

const appendOne = async (pool: pg.Pool, request: AppendRequest, attempt = 1): Promise<AppendOutcome> => {
  try {
    return (await runStatement(pool, [request]))[0]!;
  } catch (error) {
    // A concurrent writer committed one of these ids while we ran: resolve like a lost race.
    if (sqlState(error) === UNIQUE_VIOLATION) return (await resolveLosers(pool, [request])).get(request)!;
    if (sqlState(error) === DEADLOCK && attempt < 3) return appendOne(pool, request, attempt + 1);
    throw error;
  }
};

export const appendOutcomes = async (pool: pg.Pool, requests: readonly AppendRequest[]): Promise<AppendOutcome[]> => {
  validate(requests);
  if (requests.length === 0) return [];
  if (requests.length === 1) return [await appendOne(pool, requests[0]!)];
  try {
    return await runStatement(pool, requests);
  } catch (error) {
    // One request's duplicate id (or a lock cycle with another batch) must not fail the others.
    if (sqlState(error) !== UNIQUE_VIOLATION && sqlState(error) !== DEADLOCK) throw error;
    const outcomes: AppendOutcome[] = [];
    for (const r of requests) outcomes.push(await appendOne(pool, r));
    return outcomes;
  }
};
