import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';

export const sha256 = (value: string): string => createHash('sha256').update(value, 'utf8').digest('base64url');
const newRefreshToken = (): string => randomBytes(32).toString('base64url');

export type Session = Readonly<{ id: string; userId: number; refreshToken: string; expiresAt: Date }>;

/** `reused`: an already-rotated refresh token came back, so the whole session was revoked. */
export type RefreshOutcome = Session | 'unknown' | 'reused';

export type Sessions = Readonly<{
  create(userId: number, meta: Readonly<{ ip: string | null; userAgent: string | null }>): Promise<Session>;
  rotate(refreshToken: string): Promise<RefreshOutcome>;
  /** True when the session exists, is not revoked and has not expired. */
  isActive(sessionId: string, userId: number): Promise<boolean>;
  delete(sessionId: string): Promise<void>;
  revokeAllOf(userId: number, reason: string): Promise<void>;
}>;

/** Server-side sessions: the refresh token is stored only as its sha-256, rotated on every refresh. */
export const createSessions = (deps: Readonly<{ pool: pg.Pool; refreshTtlSeconds: number }>): Sessions => ({
  create: async (userId, meta) => {
    const id = randomUUID();
    const refreshToken = newRefreshToken();
    const { rows } = await deps.pool.query<{ expires_at: Date }>(
      `INSERT INTO sessions (id, user_id, refresh_hash, expires_at, ip, user_agent)
       VALUES ($1, $2, $3, now() + make_interval(secs => $4), $5, $6) RETURNING expires_at`,
      [id, userId, sha256(refreshToken), deps.refreshTtlSeconds, meta.ip, meta.userAgent?.slice(0, 512) ?? null],
    );
    return { id, userId, refreshToken, expiresAt: rows[0]!.expires_at };
  },

  rotate: async (refreshToken) => {
    const oldHash = sha256(refreshToken);
    const next = newRefreshToken();
    // One statement: of two concurrent refreshes with the same token only one can match the current hash.
    const { rows } = await deps.pool.query<{ id: string; user_id: string; expires_at: Date }>(
      `WITH rotated AS (
         UPDATE sessions SET refresh_hash = $2, refreshed_at = now()
         WHERE refresh_hash = $1 AND revoked_at IS NULL AND expires_at > now()
         RETURNING id, user_id, expires_at
       ), remembered AS (
         INSERT INTO session_rotated_refresh (refresh_hash, session_id) SELECT $1, id FROM rotated
       )
       SELECT id, user_id, expires_at FROM rotated`,
      [oldHash, sha256(next)],
    );
    const row = rows[0];
    if (row) return { id: row.id, userId: Number(row.user_id), refreshToken: next, expiresAt: row.expires_at };
    const reused = await deps.pool.query(
      `UPDATE sessions SET revoked_at = COALESCE(revoked_at, now()), revoked_reason = COALESCE(revoked_reason, 'refresh token reuse')
       WHERE id = (SELECT session_id FROM session_rotated_refresh WHERE refresh_hash = $1)`,
      [oldHash],
    );
    return (reused.rowCount ?? 0) > 0 ? 'reused' : 'unknown';
  },

  isActive: async (sessionId, userId) => {
    const { rows } = await deps.pool.query(
      'SELECT 1 FROM sessions WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL AND expires_at > now()',
      [sessionId, userId],
    );
    return rows.length > 0;
  },

  delete: async (sessionId) => {
    await deps.pool.query('DELETE FROM sessions WHERE id = $1', [sessionId]);
  },

  revokeAllOf: async (userId, reason) => {
    await deps.pool.query('UPDATE sessions SET revoked_at = now(), revoked_reason = $2 WHERE user_id = $1 AND revoked_at IS NULL', [
      userId,
      reason,
    ]);
  },
});
