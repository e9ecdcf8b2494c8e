import type { Migration } from '../../infra/migrate.js';

/** In-app notifications and their read marks. */
export const notificationsMigrations: readonly Migration[] = [
  {
    id: '0320_notifications',
    sql: `
      -- In-app notifications (notifications projection; truncated and replayed on rebuild). The id is derived
      -- from the event id, so a rebuild gives every notification the id it had and its read mark still applies.
      CREATE TABLE notifications (
        id uuid PRIMARY KEY,
        user_id bigint NOT NULL,
        type text NOT NULL,
        payload jsonb NOT NULL,
        position text NOT NULL, -- formatPosition of the event it came from
        position_commit numeric(20, 0) NOT NULL,
        position_prepare numeric(20, 0) NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX notifications_user_position ON notifications (user_id, position_commit DESC, position_prepare DESC, id);
      -- Read marks: written by NotificationViewed, never by the projection, so a rebuild keeps them.
      CREATE TABLE notification_reads (
        notification_id uuid PRIMARY KEY,
        user_id bigint NOT NULL,
        viewed_at timestamptz NOT NULL
      );
      CREATE INDEX notification_reads_user ON notification_reads (user_id);`,
  },
];
