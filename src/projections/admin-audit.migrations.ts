import type { Migration } from '../infra/migrate.js';

/** Admin audit log read model (issue 7): ids 0410_... */
export const adminAuditMigrations: Migration[] = [];
