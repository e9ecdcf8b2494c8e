import type { Migration } from '../infra/migrate.js';

/** Personal data under a key per person, and the record of each erasure: command side, never rebuilt from events. */
export const erasureMigrations: readonly Migration[] = [
  {
    id: '0560_person_keys',
    sql: `
      -- One AES-256 key per person: the user events carry their personal fields encrypted under it. Deleting the row
      -- (an erasure) leaves ciphertext nobody can read: the events, their seals and the money stay as they were.
      CREATE TABLE person_keys (
        user_id bigint PRIMARY KEY,
        key bytea NOT NULL CHECK (length(key) = 32),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      -- A person once erased never gets a key again: later events of theirs carry no personal data at all.
      CREATE TABLE person_erasures (
        user_id bigint PRIMARY KEY,
        erased_at timestamptz NOT NULL,
        admin_user_id bigint NOT NULL,
        forced boolean NOT NULL,
        last_activity timestamptz,
        retained_until timestamptz,
        -- User events written before personal fields were encrypted: they still hold them in the clear (the documented limit).
        legacy_plaintext_events integer NOT NULL DEFAULT 0
      );`,
  },
  {
    id: '0561_event_redactions',
    sql: `
      -- User events written before encryption, whose personal fields were blanked in place at an erasure. The seal keeps the
      -- hash of the event as written; this row binds that hash to the hash of the event as now stored, with a MAC under
      -- the seal key, so verify accepts the redaction and nothing else (docs/compliance-erasure.md).
      CREATE TABLE event_redactions (
        event_id uuid PRIMARY KEY,
        sealed_hash bytea NOT NULL,
        redacted_hash bytea NOT NULL,
        mac bytea NOT NULL,
        redacted_at timestamptz NOT NULL DEFAULT now()
      );`,
  },
];
