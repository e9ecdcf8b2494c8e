import type pg from 'pg';
import { migrate, type Migration } from '../infra/migrate.js';
import { walletItemKeysMigrationSql } from './wallet-items.js';

/**
 * The first append function, which read the limits inside PostgreSQL. Appends no more (the adapter's prepared statement
 * does, running the guard rule the application hands it); kept as written, since an applied migration is never edited,
 * and dropped by 0053. It lives here because it reads the application's tables: the event store knows none.
 */
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
/** Tables the command side owns (not read models: never rebuilt, never truncated). */
export const ledgerMigrations: readonly Migration[] = [
  { id: '0002_ledger_append_function', sql: LEDGER_APPEND_FUNCTION },
  {
    id: '0050_ledger_keys',
    sql: `
      -- Which wallet owns an id that arrives without its user (bet settle, deposit confirm, withdrawal approve).
      -- Written before the event is appended; an entry whose append failed points at a wallet without that id: harmless.
      CREATE TABLE ledger_keys (
        kind text NOT NULL,
        key text NOT NULL,
        user_id bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (kind, key)
      );
      CREATE SEQUENCE admin_tip_id_seq;
    `,
  },
  {
    id: '0051_currency_rates',
    sql: `
      -- USD per one unit of each currency; editable later through PUT /config?code=COMMON (config.rates).
      CREATE TABLE currency_rates (
        currency_id text PRIMARY KEY,
        usd_rate numeric NOT NULL CHECK (usd_rate >= 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      INSERT INTO currency_rates (currency_id, usd_rate) VALUES
        ('DBC', 1), ('BTC', 65000), ('ETH', 3000), ('LTC', 80), ('TRX', 0.12), ('POL', 0.5), ('USDT', 1),
        ('BNB', 550), ('SOL', 150), ('USDC', 1), ('XRP', 0.5), ('TETH', 0), ('PLATFORM_TOKEN', 0.01);
    `,
  },
  {
    id: '0052_publisher_checkpoints',
    sql: `
      -- How far each realtime publisher has pushed the ledger to sockets (at-least-once; clients dedupe by position).
      CREATE TABLE publisher_checkpoints (
        name text PRIMARY KEY,
        position text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    id: '0053_drop_ledger_append_function',
    sql: `DROP FUNCTION IF EXISTS ledger_append(
      text[], text[], bigint[], int[], int[], int[], uuid[], text[], text[], text[],
      int[], text[], text[], bigint[], int[], bigint[], numeric[], timestamptz[]
    );`,
  },
  // The expressions are the wallet's item keys (wallet-items.ts); written out there so that the lookup and the index agree.
  { id: '0054_wallet_item_keys', sql: walletItemKeysMigrationSql },
];

export const migrateLedger = (pool: pg.Pool): Promise<string[]> => migrate(pool, ledgerMigrations);
