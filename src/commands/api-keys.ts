import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { newId } from '../shared/ids.js';
import { sha256 } from '../shared/hash.js';
import type { EventStore } from '../infra/event-store/event-store.port.js';
import { inTransaction } from '../infra/pg.js';

/** Audit trail of credential changes (never a key or its hash): who issued or revoked which key, who ended sessions. */
export const apiKeysStream = (userId: number): string => `api-keys-${userId}`;

/** Records that an admin ended every session and API key of a user (the admin audit log's `user.sign-out`). */
export const recordSessionsEnded = (
  store: EventStore,
  userId: number,
  adminUserId: number,
  ended: Readonly<{ sessions: number; apiKeyIds: readonly string[] }>,
): Promise<unknown> =>
  store.append({
    streamId: apiKeysStream(userId),
    expectedRevision: 'any',
    events: [
      {
        id: newId(),
        type: 'SessionsEnded',
        data: { sessions: ended.sessions, apiKeyIds: ended.apiKeyIds, adminUserId, at: new Date().toISOString() },
        metadata: { adminUserId },
      },
    ],
  });

type Row = { id: string; user_id: string; prefix: string | null; created_at: Date; updated_at: Date };
const view = (r: Row) => ({
  id: r.id,
  userId: Number(r.user_id),
  prefix: r.prefix,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});
export type ApiKeyView = ReturnType<typeof view>;

export const createApiKeys = (deps: Readonly<{ pool: pg.Pool; store: EventStore }>) => {
  const audit = (userId: number, type: 'ApiKeyIssued' | 'ApiKeysRevoked', data: Record<string, unknown>) =>
    deps.store.append({
      streamId: apiKeysStream(userId),
      expectedRevision: 'any',
      events: [{ id: newId(), type, data, metadata: { adminUserId: data['adminUserId'] } }],
    });

  const revokeAll = async (client: pg.Pool | pg.PoolClient, userId: number, adminUserId: number): Promise<string[]> =>
    (
      await client.query<{ id: string }>(
        `UPDATE api_keys SET revoked_at = now(), updated_at = now(), revoked_by = $2 WHERE user_id = $1 AND revoked_at IS NULL
         RETURNING id`,
        [userId, adminUserId],
      )
    ).rows.map((r) => r.id);

  return {
    issue: async (userId: number, adminUserId: number): Promise<ApiKeyView & { key: string }> => {
      const key = `ck_${randomBytes(32).toString('base64url')}`;
      const id = newId();
      const { row, revoked } = await inTransaction(deps.pool, async (client) => {
        const revoked = await revokeAll(client, userId, adminUserId);
        const { rows } = await client.query<Row>(
          `INSERT INTO api_keys (id, user_id, key_hash, prefix, created_by) VALUES ($1, $2, $3, $4, $5)
           RETURNING id, user_id, prefix, created_at, updated_at`,
          [id, userId, sha256(key), key.slice(0, 8), adminUserId],
        );
        return { row: rows[0]!, revoked };
      });
      await audit(userId, 'ApiKeyIssued', {
        apiKeyId: id,
        prefix: row.prefix,
        revokedApiKeyIds: revoked,
        adminUserId,
        at: row.created_at.toISOString(),
      });
      return { ...view(row), key };
    },
    active: async (userId: number): Promise<ApiKeyView | undefined> => {
      const { rows } = await deps.pool.query<Row>(
        `SELECT id, user_id, prefix, created_at, updated_at FROM api_keys
         WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1`,
        [userId],
      );
      return rows[0] && view(rows[0]);
    },
    /** Idempotent: revoking when no key is active changes nothing. */
    revoke: async (userId: number, adminUserId: number): Promise<void> => {
      const revoked = await revokeAll(deps.pool, userId, adminUserId);
      if (revoked.length > 0) await audit(userId, 'ApiKeysRevoked', { apiKeyIds: revoked, adminUserId, at: new Date().toISOString() });
    },
  };
};
export type ApiKeys = ReturnType<typeof createApiKeys>;
