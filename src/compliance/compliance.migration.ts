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
];
