import type { Migration } from '../../infra/migrate.js';

/**
 * `admin_audit` is projected; `admin_audit_records` holds admin changes that are not events, written with the change,
 * so no rebuild truncates it. Each filter of GET /admin-audit has an index on both.
 */
export const adminAuditMigrations: readonly Migration[] = [
  {
    id: '0410_admin_audit',
    sql: `
      CREATE TABLE admin_audit (
        id text PRIMARY KEY, -- the event's id
        admin_user_id bigint NOT NULL,
        action text NOT NULL,
        target_user_id bigint, -- the user whose stream holds the event; null for site configuration
        details jsonb NOT NULL, -- the event's fields minus adminUserId, at and postings
        event_type text NOT NULL,
        stream_id text NOT NULL,
        position text NOT NULL,
        position_commit numeric(20, 0) NOT NULL,
        position_prepare numeric(20, 0) NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX admin_audit_created ON admin_audit (created_at DESC, id DESC);
      CREATE INDEX admin_audit_admin ON admin_audit (admin_user_id, created_at DESC, id DESC);
      CREATE INDEX admin_audit_target ON admin_audit (target_user_id, created_at DESC, id DESC);
      CREATE INDEX admin_audit_action ON admin_audit (action, created_at DESC, id DESC);
      CREATE TABLE admin_audit_records (
        id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
        admin_user_id bigint NOT NULL,
        action text NOT NULL,
        target_user_id bigint,
        details jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX admin_audit_records_created ON admin_audit_records (created_at DESC, id DESC);
      CREATE INDEX admin_audit_records_admin ON admin_audit_records (admin_user_id, created_at DESC, id DESC);
      CREATE INDEX admin_audit_records_target ON admin_audit_records (target_user_id, created_at DESC, id DESC);
      CREATE INDEX admin_audit_records_action ON admin_audit_records (action, created_at DESC, id DESC);`,
  },
];
