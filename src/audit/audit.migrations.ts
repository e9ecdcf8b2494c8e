import type { Migration } from '../infra/migrate.js';

/** Ledger seals and checkpoints (issue 7): ids 0400_... */
export const auditMigrations: Migration[] = [];
