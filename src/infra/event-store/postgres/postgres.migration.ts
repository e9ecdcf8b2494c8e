import type pg from 'pg';
import { migrate, type Migration } from '../../migrate.js';

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
    // One per stream, the latest: the application's state at `revision`, to fold on from (not part of the stream).
    id: '0003_stream_snapshots',
    sql: `
      CREATE TABLE stream_snapshots (
        stream_id text PRIMARY KEY,
        revision bigint NOT NULL,
        data jsonb NOT NULL,
        written_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
];

export const migrateEventStore = (pool: pg.Pool): Promise<string[]> => migrate(pool, eventStoreMigrations);
