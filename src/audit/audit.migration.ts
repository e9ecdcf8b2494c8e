import type { Migration } from '../infra/migrate.js';

export const auditMigrations: Migration[] = [
  {
    id: '0400_ledger_seals',
    sql: `
      CREATE TABLE event_seals (
        seq bigint PRIMARY KEY CHECK (seq > 0),
        commit_position numeric(20, 0) NOT NULL,
        prepare_position numeric(20, 0) NOT NULL,
        event_id uuid NOT NULL,
        stream_id text NOT NULL,
        revision bigint NOT NULL,
        prev_hash bytea NOT NULL,
        hash bytea NOT NULL,
        chain_hash bytea NOT NULL,
        sealed_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (commit_position, prepare_position)
      );
      CREATE INDEX event_seals_stream_idx ON event_seals (stream_id, seq);
      CREATE TABLE seal_checkpoints (
        sealed_count bigint PRIMARY KEY CHECK (sealed_count > 0),
        position text NOT NULL,
        chain_hash bytea NOT NULL,
        mac bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );`,
  },
  {
    // The last snapshot of each stream that verify found equal to its fold, MACed with the seal key: the next verify
    // folds only the events after it.
    id: '0401_snapshot_checks',
    sql: `
      CREATE TABLE snapshot_checks (
        stream_id text PRIMARY KEY,
        revision bigint NOT NULL,
        data jsonb NOT NULL,
        mac bytea NOT NULL,
        checked_at timestamptz NOT NULL DEFAULT now()
      );`,
  },
  {
    // Each closed period that verify re-derived and found right, MACed with the seal key, with what it hands the next
    // period (legs dated into a later period, the bets still open): the next run reads only periods closed since.
    id: '0402_period_checks',
    sql: `
      CREATE TABLE period_checks (
        period text PRIMARY KEY,
        digest text NOT NULL,
        carry jsonb NOT NULL,
        mac bytea NOT NULL,
        checked_at timestamptz NOT NULL DEFAULT now()
      );`,
  },
];
