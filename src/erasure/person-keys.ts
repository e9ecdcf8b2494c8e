import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type pg from 'pg';

/** The per-person keys (table person_keys): found in one query per batch, created with a person's first personal data. */
export type PersonKeys = Readonly<{
  /** The keys of these people that exist; an erased person (or one never given one) is absent. */
  find(userIds: readonly number[]): Promise<ReadonlyMap<number, Buffer>>;
  /** The person's key, created on first use; undefined once the person is erased (no key is ever made again). */
  obtain(userId: number): Promise<Buffer | undefined>;
}>;

export const createPersonKeys = (pool: pg.Pool): PersonKeys => ({
  find: async (userIds) => {
    if (userIds.length === 0) return new Map();
    const { rows } = await pool.query<{ user_id: string; key: Buffer }>(
      'SELECT user_id::text AS user_id, key FROM person_keys WHERE user_id = ANY($1::bigint[])',
      [[...new Set(userIds)]],
    );
    return new Map(rows.map((r) => [Number(r.user_id), r.key]));
  },
  obtain: async (userId) => {
    // One statement: the existing key, or a new one unless the person was erased.
    const { rows } = await pool.query<{ key: Buffer }>(
      `WITH made AS (
         INSERT INTO person_keys (user_id, key) SELECT $1, $2
         WHERE NOT EXISTS (SELECT 1 FROM person_erasures WHERE user_id = $1)
         ON CONFLICT (user_id) DO NOTHING RETURNING key)
       SELECT key FROM made UNION ALL SELECT key FROM person_keys WHERE user_id = $1 LIMIT 1`,
      [userId, randomBytes(32)],
    );
    return rows[0]?.key;
  },
});

/** The envelope's version prefix: `pd1.` then base64 of IV (12 bytes), GCM tag (16 bytes) and ciphertext. */
const PREFIX = 'pd1.';

/** AES-256-GCM; `context` (stream and event id) is authenticated, so a ciphertext cannot be moved to another event. */
export const encryptPersonal = (key: Buffer, context: string, value: unknown): string => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
};

export const decryptPersonal = (key: Buffer, context: string, envelope: string): unknown => {
  if (!envelope.startsWith(PREFIX)) throw new Error('personal data: unknown envelope');
  const raw = Buffer.from(envelope.slice(PREFIX.length), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(raw.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as unknown;
};
