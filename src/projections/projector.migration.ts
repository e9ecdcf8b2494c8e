import type { Migration } from '../infra/migrate.js';

export const projectorMigrations: readonly Migration[] = [
  {
    id: '0100_projection_checkpoints',
    sql: `
      CREATE TABLE projection_checkpoints (
        name text PRIMARY KEY,
        version integer NOT NULL,
        position text NOT NULL, -- formatPosition: "commit/prepare"; the last event applied
        updated_at timestamptz NOT NULL DEFAULT now()
      );`,
  },
  {
    // A `running` row whose process holds its lock makes projectors of the new version wait for the switch, not truncate.
    id: '0420_projection_rebuilds',
    sql: `
      CREATE TABLE projection_rebuilds (
        id text PRIMARY KEY,                 -- random; the shadow schema is prb_<id>
        projections text[] NOT NULL,         -- projection names, in application order
        versions integer[] NOT NULL,         -- the versions being built, parallel to projections
        shadow_schema text NOT NULL,
        state text NOT NULL CHECK (state IN ('running', 'switched', 'aborted', 'failed')),
        position text NOT NULL,              -- formatPosition of the last event applied to the shadow tables
        events_applied bigint NOT NULL DEFAULT 0,
        error text,
        started_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      );
      CREATE INDEX projection_rebuilds_running ON projection_rebuilds (started_at) WHERE state = 'running';`,
  },
  {
    // A bulk replay skips count upkeep and marks its read models here; a recount from the rows clears the mark.
    id: '0440_projection_rederive_pending',
    sql: `
      CREATE TABLE projection_rederive_pending (
        name text PRIMARY KEY,
        since timestamptz NOT NULL DEFAULT now()
      );`,
  },
  {
    // A batch's statements in one round trip: each bound as text (every parameter carries its cast); time spent per statement back.
    id: '0441_projection_apply',
    sql: `
      CREATE FUNCTION projection_apply(p_sql text[], p_args jsonb) RETURNS float8[] LANGUAGE plpgsql AS $fn$
      DECLARE
        spent float8[] := '{}';
        a text[];
        started timestamptz;
      BEGIN
        FOR i IN 1 .. coalesce(cardinality(p_sql), 0) LOOP
          started := clock_timestamp();
          SELECT coalesce(array_agg(v ORDER BY n), '{}') INTO a
          FROM jsonb_array_elements_text(p_args -> (i - 1)) WITH ORDINALITY AS x(v, n);
          EXECUTE p_sql[i] USING a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8];
          spent := spent || (extract(epoch FROM clock_timestamp() - started) * 1000)::float8;
        END LOOP;
        RETURN spent;
      END
      $fn$;`,
  },
  {
    // A live batch in one round trip when this process's checkpoints are the stored ones: the batch locks, the check, the
    // statements and the checkpoint move in one statement. NULL (nothing written) sends the caller the long way round.
    id: '0442_projection_batch',
    sql: `
      -- The lock keys come from the projector (projection-runner.ts), the model keys in the order every batch takes them.
      CREATE FUNCTION projection_batch(p_global_key text, p_model_keys text[], p_names text[], p_versions integer[],
        p_expected text[], p_to text, p_sql text[], p_args jsonb)
      RETURNS float8[] LANGUAGE plpgsql AS $fn$
      DECLARE
        k text;
        spent float8[];
      BEGIN
        PERFORM set_config('synchronous_commit', 'off', true);
        PERFORM pg_advisory_xact_lock_shared(hashtext(current_schema() || p_global_key));
        FOREACH k IN ARRAY p_model_keys LOOP
          PERFORM pg_advisory_xact_lock(hashtext(current_schema() || k));
        END LOOP;
        IF EXISTS (SELECT 1 FROM projection_rederive_pending WHERE name = ANY (p_names))
          OR (SELECT count(*) FROM projection_checkpoints c
              JOIN unnest(p_names, p_versions, p_expected) AS x(name, version, position)
              ON c.name = x.name AND c.version = x.version AND c.position = x.position) <> cardinality(p_names) THEN
          RETURN NULL;
        END IF;
        spent := projection_apply(p_sql, p_args);
        UPDATE projection_checkpoints SET position = p_to, updated_at = now() WHERE name = ANY (p_names);
        RETURN spent;
      END
      $fn$;`,
  },
  {
    // EXECUTE plans a statement on every call; a batch's ten-odd statements are the same texts every time, so each connection
    // prepares them once and re-prepares after 2 s, so that a plan made while a table was small does not outlive its size
    // (ANALYZE invalidates it too). Values go in as quoted literals: EXECUTE of a prepared statement takes no USING.
    id: '0460_projection_apply_prepared',
    sql: `
      CREATE OR REPLACE FUNCTION projection_apply(p_sql text[], p_args jsonb) RETURNS float8[] LANGUAGE plpgsql
      SET plan_cache_mode = force_generic_plan AS $fn$
      DECLARE
        spent float8[] := '{}';
        a text[];
        started timestamptz;
        h text;
        made text;
      BEGIN
        FOR i IN 1 .. coalesce(cardinality(p_sql), 0) LOOP
          started := clock_timestamp();
          SELECT coalesce(array_agg(v ORDER BY n), '{}') INTO a
          FROM jsonb_array_elements_text(p_args -> (i - 1)) WITH ORDINALITY AS x(v, n);
          IF p_sql[i] !~* '^\\s*(with|insert|update|delete|select)\\M' THEN
            EXECUTE p_sql[i] USING a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8];
          ELSE
            h := 'projection_' || md5(p_sql[i]);
            made := current_setting('ledger_projection.' || h, true);
            -- Unset, or reset by a rolled-back transaction (PREPARE itself is not transactional), or too old.
            IF coalesce(made, '') = '' OR extract(epoch FROM started) - made::float8 > 2 THEN
              IF EXISTS (SELECT 1 FROM pg_prepared_statements WHERE name = h) THEN
                EXECUTE format('DEALLOCATE %I', h);
              END IF;
              EXECUTE format('PREPARE %I(text, text, text, text, text, text, text, text) AS %s', h, p_sql[i]);
              PERFORM set_config('ledger_projection.' || h, extract(epoch FROM started)::text, false);
            END IF;
            EXECUTE format('EXECUTE %I(%L, %L, %L, %L, %L, %L, %L, %L)', h, a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
          END IF;
          spent := spent || (extract(epoch FROM clock_timestamp() - started) * 1000)::float8;
        END LOOP;
        RETURN spent;
      END
      $fn$;`,
  },
];
