import type { Migration } from '../infra/migrate.js';

/** Notifications read model and read marks (issue 6): ids 0320_... */
export const notificationsMigrations: Migration[] = [];
