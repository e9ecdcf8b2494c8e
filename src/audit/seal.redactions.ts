import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { RecordedEvent } from '../infra/event-store/event-store.port.js';
import { canonicalEvent, sealMac, sealMatches } from './seal.hash.js';

/**
 * A sealed event whose personal fields were blanked in place at an erasure (docs/compliance-erasure.md): the seal's hash
 * of the event as written, the hash of the event as now stored, bound by a MAC under the seal key.
 */
export type Redaction = Readonly<{ eventId: string; sealedHash: Buffer; redactedHash: Buffer; mac: Buffer }>;

export const redactedHashOf = (e: RecordedEvent): Buffer => createHash('sha256').update(canonicalEvent(e)).digest();

const parts = (r: Omit<Redaction, 'mac'>): string[] => [
  'redaction',
  r.eventId,
  r.sealedHash.toString('hex'),
  r.redactedHash.toString('hex'),
];

export const redactionMac = (key: Buffer, r: Omit<Redaction, 'mac'>): Buffer => sealMac(key, ...parts(r));

/** Whether the stored event is exactly the redacted form its redaction names, made with the seal key, of this seal. */
export const redactionHolds = (key: Buffer, r: Redaction, e: RecordedEvent, sealHash: Buffer): boolean =>
  r.sealedHash.equals(sealHash) && redactedHashOf(e).equals(r.redactedHash) && sealMatches(key, r.mac, ...parts(r));

/** Every redaction (few: one per legacy user event of an erased person); none where the table is not migrated yet. */
export const readRedactions = async (pool: pg.Pool): Promise<Map<string, Redaction>> => {
  const exists = await pool.query<{ t: string | null }>(`SELECT to_regclass('event_redactions')::text AS t`);
  if (!exists.rows[0]?.t) return new Map();
  const { rows } = await pool.query<{ event_id: string; sealed_hash: Buffer; redacted_hash: Buffer; mac: Buffer }>(
    'SELECT event_id::text AS event_id, sealed_hash, redacted_hash, mac FROM event_redactions',
  );
  return new Map(
    rows.map((r) => [r.event_id, { eventId: r.event_id, sealedHash: r.sealed_hash, redactedHash: r.redacted_hash, mac: r.mac }]),
  );
};
