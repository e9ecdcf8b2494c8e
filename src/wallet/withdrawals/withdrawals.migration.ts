import type { Migration } from '../../infra/migrate.js';

/** The withdrawals read model's later columns (its table is created with the deposits', 0103). */
export const withdrawalsMigrations: readonly Migration[] = [
  {
    // The business time of the withdrawal's request (docs/ledger.md, "Two times"); earlier rows: their recording time.
    id: '0482_withdrawals_effective_at',
    sql: `
      ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS effective_at timestamptz;
      UPDATE withdrawals SET effective_at = created_at WHERE effective_at IS NULL;
      ALTER TABLE withdrawals ALTER COLUMN effective_at SET NOT NULL;`,
  },
];
