import type { Migration } from '../infra/migrate.js';

/** Gateway tables and triggers (issue 6): ids 0300_... */
export const gatewayMigrations: Migration[] = [];
