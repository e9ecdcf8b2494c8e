import type { Migration } from '../infra/migrate.js';

/** Projection versions and blue/green switching (issue 7): ids 0420_... */
export const projectionOpsMigrations: Migration[] = [];
