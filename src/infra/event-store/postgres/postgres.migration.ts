import type pg from 'pg';
import { migrate, type Migration } from '../../migrate.js';

/** Appends no more (postgres.append.sql.ts's statement does, at about two thirds of its cost); a migration is never edited. */
const LEDGER_APPEND_FUNCTION = `
CREATE FUNCTION ledger_append(
  p_stream text[], p_kind text[], p_expected bigint[], p_n int[],
  e_req int[], e_idx int[], e_id uuid[], e_type text[], e_data text[], e_meta text[],
  c_req int[], c_kind text[], c_key text[], c_owner bigint[],
  g_req int[], g_user bigint[], g_usd numeric[], g_at timestamptz[]
) RETURNS TABLE (o_stream text, o_revision text, o_position text, o_xact text, o_refused text)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $fn$
DECLARE
  stored int[] := '{}';
  guarded int[] := '{}';
  clashed int[] := '{}';
BEGIN
  IF EXISTS (SELECT 1 FROM events WHERE event_id = ANY (e_id)) THEN
    SELECT array_agg(DISTINCT e.req) INTO stored FROM unnest(e_req, e_id) AS e(req, id)
    WHERE e.id IN (SELECT event_id FROM events WHERE event_id = ANY (e_id));
  END IF;
  IF cardinality(g_req) > 0 THEN
    SELECT coalesce(array_agg(DISTINCT g.req), '{}') INTO guarded
    FROM unnest(g_req, g_user, g_usd, g_at) AS g(req, user_id, usd, at)
    LEFT JOIN user_access a ON a.user_id = g.user_id
    LEFT JOIN user_limits l ON l.user_id = g.user_id
    WHERE g.req <> ALL (stored) AND (a.is_banned IS TRUE
      OR (l.state->'exclusion'->>'expiresAt')::timestamptz > g.at
      OR g.usd > (l.state->'betLimit'->>'betLimit')::numeric);
  END IF;
  IF cardinality(c_req) > 0 THEN
    WITH cl AS (
      SELECT * FROM unnest(c_req, c_kind, c_key, c_owner) AS c(req, kind, key, owner)
      WHERE c.req <> ALL (stored) AND c.req <> ALL (guarded)
    ), keyed AS (
      INSERT INTO ledger_keys (kind, key, user_id) SELECT cl.kind, cl.key, cl.owner FROM cl ORDER BY cl.kind, cl.key
      ON CONFLICT DO NOTHING RETURNING kind, key, user_id
    )
    SELECT coalesce(array_agg(DISTINCT cl.req), '{}') INTO clashed FROM cl
    LEFT JOIN keyed k ON k.kind = cl.kind AND k.key = cl.key
    LEFT JOIN ledger_keys o ON o.kind = cl.kind AND o.key = cl.key
    WHERE COALESCE(k.user_id, o.user_id) IS DISTINCT FROM cl.owner;
  END IF;
  RETURN QUERY
  WITH req AS (
    SELECT * FROM unnest(p_stream, p_kind, p_expected, p_n) WITH ORDINALITY AS r(stream_id, kind, expected, n, ord)
  ), claimed AS (
    SELECT * FROM req WHERE ord <> ALL (stored) AND ord <> ALL (guarded) AND ord <> ALL (clashed)
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
  ), written AS (
    INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata)
    SELECT w.stream_id, w.revision - r.n + e.idx, e.id, e.type, e.data::jsonb, e.meta::jsonb
    FROM unnest(e_req, e_idx, e_id, e_type, e_data, e_meta) WITH ORDINALITY AS e(req, idx, id, type, data, meta, ord)
    JOIN req r ON r.ord = e.req JOIN winners w ON w.stream_id = r.stream_id
    ORDER BY e.ord
    RETURNING events.stream_id, events.stream_revision, events.global_position
  )
  SELECT wr.stream_id, max(wr.stream_revision)::text, max(wr.global_position)::text, pg_current_xact_id()::text, NULL::text
  FROM written wr GROUP BY wr.stream_id
  UNION ALL
  SELECT r.stream_id, NULL, NULL, NULL, 'key' FROM req r WHERE r.ord = ANY (clashed)
  UNION ALL
  SELECT r.stream_id, NULL, NULL, NULL, 'guard' FROM req r WHERE r.ord = ANY (guarded);
END
$fn$;
`;

/** Writers lock the `streams` head row (one wins per revision); readers order by (xid8, position) below the oldest running xid. */
export const eventStoreMigrations: Migration[] = [
  {
    id: '0001_event_store_tables',
    sql: `
      CREATE TABLE streams (
        stream_id text PRIMARY KEY,
        revision bigint NOT NULL
      );
      CREATE TABLE events (
        global_position bigserial PRIMARY KEY,
        transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
        stream_id text NOT NULL,
        stream_revision bigint NOT NULL,
        event_id uuid NOT NULL UNIQUE,
        type text NOT NULL,
        data jsonb NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (stream_id, stream_revision)
      );
      CREATE INDEX events_transaction_position_idx ON events (transaction_id, global_position);
    `,
  },
  {
    id: '0002_ledger_append_function',
    sql: LEDGER_APPEND_FUNCTION,
  },
];

export const migrateEventStore = (pool: pg.Pool): Promise<string[]> => migrate(pool, eventStoreMigrations);
