import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { RecordedEvent } from '../infra/event-store/event-store.port.js';

/** The `prev_hash` of the first event of every stream, and the chain hash before the first seal. */
export const GENESIS = Buffer.alloc(32);

/** jsonb keeps neither key order nor spacing, so sealer and verifier canonicalise events the same way after reading. */
export const canonicalJson = (value: unknown): string => {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? value.toString() : (JSON.stringify(value) ?? 'null');
  // Plain loops: this runs for every event the sealer and the verifier see.
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) out += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const k of Object.keys(record).sort()) {
    const v = record[k];
    if (v === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(k)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
};

/** What a seal covers: everything of the event but its global position (the seal row records that). */
export const canonicalEvent = (e: RecordedEvent): string =>
  canonicalJson({
    streamId: e.streamId,
    revision: e.revision.toString(),
    id: e.id.toLowerCase(),
    type: e.type,
    data: e.data,
    metadata: e.metadata,
    createdAt: e.createdAt.toISOString(),
  });

const sha256 = (...parts: readonly (Buffer | string)[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** The event's link in its stream's chain: SHA-256(prev_hash || canonical(event)). */
export const eventHash = (prevHash: Buffer, e: RecordedEvent): Buffer => sha256(prevHash, canonicalEvent(e));

/** The event's link in the global chain: SHA-256(previous chain_hash || hash). */
export const chainHash = (prevChain: Buffer, hash: Buffer): Buffer => sha256(prevChain, hash);

export type CheckpointFields = Readonly<{ position: string; chainHash: Buffer; sealedCount: bigint }>;

/** HMAC-SHA256 with the seal key over the parts joined by "|": every seal of the ledger (checkpoints, closes, checks). */
export const sealMac = (key: Buffer, ...parts: readonly string[]): Buffer => createHmac('sha256', key).update(parts.join('|')).digest();

/** Whether `mac` is the seal of the parts, compared in constant time. */
export const sealMatches = (key: Buffer, mac: Buffer, ...parts: readonly string[]): boolean => {
  const expected = sealMac(key, ...parts);
  return mac.length === expected.length && timingSafeEqual(mac, expected);
};

/** HMAC-SHA256(key, "position|chain_hash hex|sealed_count"): what an attacker without the key cannot forge. */
export const checkpointMac = (key: Buffer, c: CheckpointFields): Buffer =>
  sealMac(key, c.position, c.chainHash.toString('hex'), String(c.sealedCount));

export const macMatches = (key: Buffer, c: CheckpointFields, mac: Buffer): boolean =>
  sealMatches(key, mac, c.position, c.chainHash.toString('hex'), String(c.sealedCount));

export const assertSealKey = (key: Buffer): void => {
  if (key.length !== 32) throw new TypeError(`ledger seal key: must be 32 bytes, got ${key.length}`);
};
