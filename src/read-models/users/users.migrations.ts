import type { Migration } from '../../infra/migrate.js';

/** Columns the back office's full user record needs beyond 0110_users (filled by the users projection, version 2). */
export const usersReadModelMigrations: Migration[] = [
  {
    id: '0190_users_identity_columns',
    sql: `
      ALTER TABLE users ADD COLUMN game_platform_id text, ADD COLUMN identity_provider_email text;
      -- GET /user/get-admins-with-roles and the role filter of /user/all.
      CREATE INDEX users_roles ON users USING gin (roles);`,
  },
];
