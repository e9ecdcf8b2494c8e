import type pg from 'pg';
import { redactedHashOf, redactionMac } from '../audit/seal.redactions.js';
import { SEAL_LOCK_SQL } from '../audit/seal.store.js';
import { userStream } from '../domain/user/user.events.js';
import { toRecordedEvent } from '../infra/event-store/postgres/postgres.reads.js';
import { withLockedTransaction } from '../infra/follow/locked-transaction.js';
import { fieldsOf, isLegacyPlaintext } from './personal-fields.js';

type EventRow = Parameters<typeof toRecordedEvent>[0];

/**
 * Blanks the personal fields of a person's user events written before encryption (PostgreSQL store only), each only once
 * it is sealed, under the seal lock (no sealer can seal it meanwhile). Returns how many still hold plaintext (unsealed).
 */
export const redactLegacyEvents = (pool: pg.Pool, key: Buffer, userId: number): Promise<{ redacted: number; left: number }> =>
  withLockedTransaction(pool, SEAL_LOCK_SQL, async (client) => {
    const { rows } = await client.query<EventRow & { seal_hash: Buffer | null }>(
      `SELECT e.global_position, e.transaction_id::text AS transaction_id, e.stream_id, e.stream_revision, e.event_id::text AS event_id,
         e.type, e.data, e.metadata, e.created_at, s.hash AS seal_hash
       FROM events e LEFT JOIN event_seals s ON s.event_id = e.event_id WHERE e.stream_id = $1 ORDER BY e.stream_revision`,
      [userStream(userId)],
    );
    let redacted = 0;
    let left = 0;
    for (const row of rows) {
      const e = toRecordedEvent(row);
      if (!isLegacyPlaintext(e.type, e.data)) continue;
      if (!row.seal_hash) {
        left += 1;
        continue;
      }
      const data = fieldsOf(e.type)!.blank(e.data);
      const redactedHash = redactedHashOf({ ...e, data });
      const r = { eventId: e.id.toLowerCase(), sealedHash: row.seal_hash, redactedHash };
      await client.query('UPDATE events SET data = $2::jsonb WHERE event_id = $1', [r.eventId, JSON.stringify(data)]);
      await client.query(
        `INSERT INTO event_redactions (event_id, sealed_hash, redacted_hash, mac) VALUES ($1, $2, $3, $4)
         ON CONFLICT (event_id) DO UPDATE SET redacted_hash = EXCLUDED.redacted_hash, mac = EXCLUDED.mac`,
        [r.eventId, r.sealedHash, r.redactedHash, redactionMac(key, r)],
      );
      redacted += 1;
    }
    return { redacted, left };
  });
