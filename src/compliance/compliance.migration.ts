import type { Migration } from '../infra/migrate.js';

/** Command-side tables and functions of deposit and loss limits (docs/compliance.md). */
export const complianceMigrations: readonly Migration[] = [
  {
    id: '0520_gambling_limits',
    sql: `
      -- A deposit or loss limit in force at a time, from the limits state the bet guard reads (user_limits.state):
      -- the pending value once its time has come, else the value (NULL: no limit). Inlined by the planner.
      CREATE FUNCTION gambling_limit_at(state jsonb, key text, at timestamptz) RETURNS numeric
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT (CASE WHEN (state->'gambling'->key->>'pendingAt')::timestamptz <= at
            THEN state->'gambling'->key->>'pendingValue' ELSE state->'gambling'->key->>'value' END)::numeric
        $$;
    `,
  },
  {
    id: '0521_aml_flags',
    sql: `
      -- The AML streams (aml-<user>) folded, one row per flag, written right after each append: what the back office
      -- lists and what a withdrawal's approval checks. Flags are never deleted.
      CREATE TABLE aml_flags (
        id text PRIMARY KEY,
        user_id bigint NOT NULL,
        kind text NOT NULL,
        linked_usd numeric NOT NULL,
        threshold_usd numeric NOT NULL,
        window_hours int NOT NULL,
        withdrawal_id text,
        status text NOT NULL,
        assignee_user_id bigint,
        note text,
        raised_at timestamptz NOT NULL,
        cleared_at timestamptz,
        cleared_by_user_id bigint,
        revision bigint NOT NULL
      );
      CREATE INDEX aml_flags_status_raised ON aml_flags (status, raised_at DESC);
      CREATE INDEX aml_flags_withdrawal ON aml_flags (withdrawal_id) WHERE withdrawal_id IS NOT NULL;
    `,
  },
];
