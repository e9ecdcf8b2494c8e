import type { Migration } from '../infra/migrate.js';

/** Chat rooms and messages: ids 0310_... */
export const chatMigrations: Migration[] = [
  {
    id: '0310_chat_rooms_messages',
    sql: `
      CREATE TABLE chat_rooms (
        id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
        name text NOT NULL,
        position integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      INSERT INTO chat_rooms (id, name, position) VALUES
        ('general', 'General', 1), ('en', 'English', 2), ('es', 'Español', 3), ('pt', 'Português', 4), ('ru', 'Русский', 5);
      INSERT INTO chat_rooms (id, name, position) SELECT room_id, room_id, 100 FROM chat_room_limits ON CONFLICT (id) DO NOTHING;
      ALTER TABLE chat_room_limits ADD CONSTRAINT chat_room_limits_room_fk FOREIGN KEY (room_id) REFERENCES chat_rooms (id);
      UPDATE chat_moderation SET applied_at = created_at WHERE action = 'set_rate_limit' AND applied_at IS NULL;

      CREATE TABLE chat_messages (
        id bigserial PRIMARY KEY,
        room_id text NOT NULL REFERENCES chat_rooms (id),
        user_id bigint NOT NULL,
        username text NOT NULL,
        text text NOT NULL,
        created_at timestamptz NOT NULL,
        deleted_at timestamptz,
        deleted_by bigint
      );
      -- History pages: the room's visible messages by id.
      CREATE INDEX chat_messages_room_id ON chat_messages (room_id, id DESC) WHERE deleted_at IS NULL;
      -- The per-user rate limit counts a user's recent messages in a room.
      CREATE INDEX chat_messages_sender ON chat_messages (room_id, user_id, created_at);`,
  },
];
