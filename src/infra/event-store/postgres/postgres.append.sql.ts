const REQUESTS_AND_EVENTS = `
WITH req AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::int[]) WITH ORDINALITY AS r(stream_id, kind, expected, n, ord)
), ev AS (
  SELECT * FROM unnest($5::int[], $6::int[], $7::uuid[], $8::text[], string_to_array($9::text, chr(1)), string_to_array($10::text, chr(1)))
    WITH ORDINALITY AS e(req, idx, id, type, data, meta, ord)
)`;

/** The guard rule's SQL (handed over by the application), or none: a statement is built per rule, never knowing its tables. */
export type GuardSql = ((user: string, usd: string, at: string, figures: string) => string) | undefined;

/**
 * The requests a guard refuses, each with what every one of its checks yielded, in order, separated by U+0001 (empty:
 * that check passed): a wallet's append carries the checks of several commands, and only the refused ones leave.
 */
const guarded = (guard: GuardSql, unlessStored: boolean, name = 'guarded'): string =>
  guard
    ? `, ${name} AS (
  SELECT g.req, string_agg(coalesce(r.refusal, ''), chr(1) ORDER BY g.ord) AS refusal
  FROM unnest($16::int[], $17::bigint[], $18::numeric[], $19::timestamptz[], $20::text[])
    WITH ORDINALITY AS g(req, user_id, usd, at, figures, ord)
  CROSS JOIN LATERAL (SELECT ${guard('g.user_id', 'g.usd', 'g.at', 'g.figures::numeric[]')} AS refusal) r
  ${unlessStored ? 'WHERE g.req NOT IN (SELECT req FROM stored) ' : ''}GROUP BY g.req HAVING bool_or(r.refusal IS NOT NULL)
)`
    : `, guarded AS (SELECT NULL::int AS req, NULL::text AS refusal WHERE false)`;

const WRITE_WINNERS = `, written AS (
  INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata)
  SELECT w.stream_id, w.revision - r.n + e.idx, e.id, e.type, e.data::jsonb, e.meta::jsonb
  FROM ev e JOIN req r ON r.ord = e.req JOIN winners w ON w.stream_id = r.stream_id
  ORDER BY e.ord
  RETURNING events.stream_id, events.stream_revision, events.global_position
)
SELECT wr.stream_id, max(wr.stream_revision)::text AS revision, max(wr.global_position)::text AS global_position,
  pg_current_xact_id()::text AS transaction_id, NULL AS refused
FROM written wr GROUP BY wr.stream_id`;

const REFUSED_BY_GUARD = `
UNION ALL
SELECT r.stream_id, NULL, NULL, NULL, 'guard:' || g.refusal FROM req r JOIN guarded g ON g.req = r.ord`;

/**
 * The group-commit append as one statement, prepared on connections whose planner settings pin a generic plan reaching every table
 * by key. Left out: requests whose event ids are stored (a retry, resolved afterwards), then those a guard refuses, then those whose
 * key another owner holds (or a writer this snapshot cannot see), or whose fresh claim finds its key already there. Keys are
 * claimed in (kind, key) order, only for written commands.
 */
export const appendStatement = (withClaims: boolean, guard: GuardSql): string => `${REQUESTS_AND_EVENTS}, stored AS (
  SELECT DISTINCT ev.req FROM ev JOIN events s ON s.event_id = ev.id
)${guarded(guard, true)}${
  withClaims || guard
    ? `, cl AS (
  SELECT * FROM unnest($11::int[], $12::text[], $13::text[], $14::bigint[], $15::bool[]) AS c(req, kind, key, owner, fresh)
  WHERE c.req NOT IN (SELECT req FROM stored) AND c.req NOT IN (SELECT req FROM guarded)
), keyed AS (
  INSERT INTO ledger_keys (kind, key, user_id) SELECT cl.kind, cl.key, cl.owner FROM cl ORDER BY cl.kind, cl.key
  ON CONFLICT DO NOTHING RETURNING kind, key, user_id
), clashed AS (
  SELECT DISTINCT cl.req FROM cl
  LEFT JOIN keyed k ON k.kind = cl.kind AND k.key = cl.key
  LEFT JOIN ledger_keys o ON o.kind = cl.kind AND o.key = cl.key
  WHERE COALESCE(k.user_id, o.user_id) IS DISTINCT FROM cl.owner OR (cl.fresh AND k.user_id IS NULL)
)`
    : `, clashed AS (SELECT NULL::int AS req WHERE false)`
}, claimed AS (
  SELECT * FROM req
  WHERE ord NOT IN (SELECT req FROM stored) AND ord NOT IN (SELECT req FROM guarded) AND ord NOT IN (SELECT req FROM clashed)
), exact AS (
  UPDATE streams s SET revision = s.revision + c.n FROM claimed c
  WHERE c.kind = 'exact' AND s.stream_id = c.stream_id AND s.revision = c.expected
  RETURNING s.stream_id, s.revision
), fresh AS (
  INSERT INTO streams (stream_id, revision) SELECT c.stream_id, c.n - 1 FROM claimed c WHERE c.kind = 'no_stream'
  ON CONFLICT (stream_id) DO NOTHING RETURNING streams.stream_id, streams.revision
), anyone AS (
  INSERT INTO streams AS s (stream_id, revision) SELECT c.stream_id, c.n - 1 FROM claimed c WHERE c.kind = 'any'
  ON CONFLICT (stream_id) DO UPDATE SET revision = s.revision + excluded.revision + 1 RETURNING s.stream_id, s.revision
), winners AS (
  SELECT * FROM exact UNION ALL SELECT * FROM fresh UNION ALL SELECT * FROM anyone
)${WRITE_WINNERS}
UNION ALL
SELECT r.stream_id, NULL, NULL, NULL, 'key' FROM req r WHERE r.ord IN (SELECT req FROM clashed)${REFUSED_BY_GUARD}`;

/** For exact revisions, probing only what a guard flags: a stored id or a taken key fails it on a unique index, and the batch goes full. */
export const leanAppendStatement = (withClaims: boolean, guard: GuardSql): string => `${REQUESTS_AND_EVENTS}${
  guard
    ? `${guarded(guard, false, 'flagged')}, guarded AS (
  SELECT f.req, f.refusal FROM flagged f WHERE NOT EXISTS (SELECT 1 FROM ev JOIN events s ON s.event_id = ev.id WHERE ev.req = f.req)
)`
    : guarded(undefined, false)
}, winners AS (
  UPDATE streams s SET revision = s.revision + c.n FROM req c
  WHERE s.stream_id = c.stream_id AND s.revision = c.expected AND c.ord NOT IN (SELECT req FROM guarded)
  RETURNING s.stream_id, s.revision
)${
  withClaims || guard
    ? `, keyed AS (
  INSERT INTO ledger_keys (kind, key, user_id)
  SELECT c.kind, c.key, c.owner
  FROM unnest($11::int[], $12::text[], $13::text[], $14::bigint[], $15::bool[]) AS c(req, kind, key, owner, fresh)
  JOIN req r ON r.ord = c.req JOIN winners w ON w.stream_id = r.stream_id ORDER BY c.kind, c.key
)`
    : ''
}${WRITE_WINNERS}${REFUSED_BY_GUARD}`;

/** A lone request of one event, one key, one guard, at an exact revision: scalars, half the work of a batch of one; falls back as lean. */
export const soloAppendStatement = (withClaims: boolean, guard: GuardSql): string => `WITH flagged AS (
  SELECT ${
    guard
      ? `CASE WHEN NOT EXISTS (SELECT 1 FROM events s WHERE s.event_id = $3)
    THEN ${guard('$10::bigint', '$11::numeric', '$12::timestamptz', '$13::numeric[]')} END`
      : 'NULL::text'
  } AS refusal
), winner AS (
  UPDATE streams s SET revision = s.revision + 1 FROM flagged f WHERE f.refusal IS NULL AND s.stream_id = $1 AND s.revision = $2
  RETURNING s.revision
)${
  withClaims || guard
    ? `, keyed AS (
  INSERT INTO ledger_keys (kind, key, user_id) SELECT $7::text, $8::text, $9::bigint FROM winner WHERE $7::text IS NOT NULL
)`
    : ''
}, written AS (
  INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata)
  SELECT $1, w.revision, $3, $4, $5::jsonb, $6::jsonb FROM winner w
  RETURNING events.stream_revision, events.global_position
)
SELECT $1::text AS stream_id, w.stream_revision::text AS revision, w.global_position::text AS global_position,
  pg_current_xact_id()::text AS transaction_id, NULL AS refused
FROM written w
UNION ALL
SELECT $1, NULL, NULL, NULL, 'guard:' || refusal FROM flagged WHERE refusal IS NOT NULL`;
