import type { Migration } from '../../infra/migrate.js';

/**
 * Reconciliation with payment providers (docs/reconciliation.md): each run is written once, with the statement as
 * uploaded and every item it found; a break's resolution is a row of its own. Runs and items refuse UPDATE and DELETE.
 * The read models' lookups a run makes (a provider's items by business time, by transaction hash) get their indexes.
 */
export const reconciliationMigrations: readonly Migration[] = [
  {
    id: '0510_reconciliation',
    sql: `
      CREATE TABLE reconciliation_runs (
        id text PRIMARY KEY,
        provider_id text NOT NULL,
        range_from timestamptz NOT NULL,
        range_to timestamptz NOT NULL,
        file_name text,
        sha256 text NOT NULL UNIQUE,
        statement text NOT NULL,
        lines integer NOT NULL,
        tolerances jsonb NOT NULL,
        totals jsonb NOT NULL,
        breaks integer NOT NULL,
        uploaded_by bigint NOT NULL,
        uploaded_at timestamptz NOT NULL
      );
      CREATE INDEX reconciliation_runs_uploaded ON reconciliation_runs (uploaded_at DESC, id DESC);
      CREATE TABLE reconciliation_items (
        run_id text NOT NULL, -- written with its run, in one transaction (no foreign key: 100,000 checks per run)
        item_no integer NOT NULL,
        kind text NOT NULL CHECK (kind IN ('matched', 'amount_mismatch', 'status_mismatch', 'missing_in_ledger', 'missing_in_statement')),
        direction text NOT NULL CHECK (direction IN ('deposit', 'withdrawal')),
        matched_by text,
        line integer,
        reference text,
        external_id text,
        tx_hash text,
        statement_currency text,
        statement_amount numeric,
        statement_status text,
        occurred_at timestamptz,
        ledger_ids jsonb,
        ledger_currency text,
        ledger_amount numeric,
        ledger_status text,
        effective_at timestamptz,
        difference numeric,
        detail text,
        PRIMARY KEY (run_id, item_no)
      );
      CREATE INDEX reconciliation_items_kind ON reconciliation_items (run_id, kind, item_no);
      CREATE TABLE reconciliation_resolutions (
        run_id text NOT NULL,
        item_no integer NOT NULL,
        note text NOT NULL,
        resolved_by bigint NOT NULL,
        resolved_at timestamptz NOT NULL,
        PRIMARY KEY (run_id, item_no),
        FOREIGN KEY (run_id, item_no) REFERENCES reconciliation_items (run_id, item_no)
      );
      CREATE FUNCTION reconciliation_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION '% is written once: % refused', TG_TABLE_NAME, TG_OP; END
      $$;
      CREATE TRIGGER reconciliation_runs_immutable BEFORE UPDATE OR DELETE ON reconciliation_runs
        FOR EACH ROW EXECUTE FUNCTION reconciliation_immutable();
      CREATE TRIGGER reconciliation_items_immutable BEFORE UPDATE OR DELETE ON reconciliation_items
        FOR EACH ROW EXECUTE FUNCTION reconciliation_immutable();
      CREATE TRIGGER reconciliation_resolutions_immutable BEFORE UPDATE OR DELETE ON reconciliation_resolutions
        FOR EACH ROW EXECUTE FUNCTION reconciliation_immutable();

      CREATE INDEX deposits_provider_effective ON deposits (provider_id, effective_at);
      CREATE INDEX deposits_tx_hash ON deposits (tx_hash) WHERE tx_hash IS NOT NULL;
      CREATE INDEX withdrawals_provider_effective ON withdrawals (provider_id, effective_at);
      CREATE INDEX withdrawals_tx_hash ON withdrawals (tx_hash) WHERE tx_hash IS NOT NULL;
      CREATE INDEX withdrawals_operation_key ON withdrawals (operation_key);`,
  },
];
