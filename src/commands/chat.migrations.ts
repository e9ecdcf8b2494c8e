import type { Migration } from '../infra/migrate.js';

/** Chat rooms and messages (issue 6): ids 0310_... */
export const chatMigrations: Migration[] = [];
