import type { Migration } from '../infra/migrate.js';

/** The projector's own bookkeeping: each read model's checkpoint and version, and the blue/green rebuilds. */
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
    // One row per blue/green rebuild (src/projections/blue-green.ts). A `running` row whose process still
    // holds its advisory lock makes projectors of the same new version wait for the switch instead of
    // truncating the live tables; the rows stay afterwards as the history of rebuilds.
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
];
