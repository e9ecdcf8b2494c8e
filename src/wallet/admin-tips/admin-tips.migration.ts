import type { Migration } from '../../infra/migrate.js';

/** The admin-tips read model's later columns (its table is created with the bets', 0104). */
export const adminTipsMigrations: readonly Migration[] = [
  {
    // An admin's tip takes effect when it is recorded (docs/ledger.md, "Two times"): the column says so for every row.
    id: '0484_admin_tips_effective_at',
    sql: `
      ALTER TABLE admin_tips ADD COLUMN IF NOT EXISTS effective_at timestamptz;
      UPDATE admin_tips SET effective_at = created_at WHERE effective_at IS NULL;
      ALTER TABLE admin_tips ALTER COLUMN effective_at SET NOT NULL;`,
  },
];
