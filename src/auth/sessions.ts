import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jwtKeyFile } from '../infra/required-secrets.js';
import { sha256 } from '../shared/hash.js';
import { MissingKeyError } from '../infra/secrets.js';
import {
  SignJWT,
  exportJWK,
  generateKeyPair,
  importJWK,
  importPKCS8,
  importSPKI,
  jwtVerify,
  errors as joseErrors,
  type CryptoKey,
  type JWK,
} from 'jose';

const newRefreshToken = (): string => randomBytes(32).toString('base64url');

export type Session = Readonly<{ id: string; userId: number; refreshToken: string; expiresAt: Date }>;

/** `reused`: an already-rotated refresh token came back, so the whole session was revoked. */
export type RefreshOutcome = Session | 'unknown' | 'reused';

export type Sessions = Readonly<{
  create(userId: number, meta: Readonly<{ ip: string | null; userAgent: string | null }>): Promise<Session>;
  rotate(refreshToken: string): Promise<RefreshOutcome>;
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

/** What ending a user's access revoked. */
export type AccessEnded = Readonly<{ sessions: number; apiKeyIds: readonly string[] }>;

/**
 * Ends every way in of a user at once: every session (with its refresh token, so no access token of it passes either)
 * and every API key. Nothing restores them: a ban lifted later or a new password needs a new sign-in and a new key.
 */
export const revokeAllAccess = async (pool: pg.Pool, userId: number, reason: string, byUserId: number | null): Promise<AccessEnded> => {
  const { rows } = await pool.query<{ sessions: string; api_key_ids: string[] }>(
    `WITH s AS (
       UPDATE sessions SET revoked_at = now(), revoked_reason = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING 1
     ), k AS (
       UPDATE api_keys SET revoked_at = now(), updated_at = now(), revoked_by = $3
       WHERE user_id = $1 AND revoked_at IS NULL RETURNING id
     )
     SELECT (SELECT count(*) FROM s) AS sessions, ARRAY(SELECT id::text FROM k) AS api_key_ids`,
    [userId, reason, byUserId],
  );
  return { sessions: Number(rows[0]!.sessions), apiKeyIds: rows[0]!.api_key_ids };
};

/** Signing is pinned to one asymmetric algorithm; verification accepts only it (no `none`, no HMAC confusion). */
export const JWT_ALG = 'EdDSA';
const ISSUER = 'casino-ledger';
/** Header `typ` keeps access and MFA challenge tokens apart: neither can pass as the other. */
export const ACCESS_TYP = 'at+jwt';
export const MFA_TYP = 'mfa-challenge+jwt';
export const ACCESS_COOKIE = 'access_token';

export type KeyPair = Readonly<{ privateKey: CryptoKey; publicKey: CryptoKey }>;
export type AccessClaims = Readonly<{ userId: number; sessionId: string }>;
export type MfaClaims = Readonly<{ userId: number; jti: string; expiresAt: Date }>;

/** Why a token was refused; `mfa` = an MFA challenge token where an access token was expected. */
export type TokenRefusal = 'invalid' | 'expired' | 'mfa';

export type Tokens = Readonly<{
  signAccess(claims: AccessClaims): Promise<string>;
  verifyAccess(token: string): Promise<AccessClaims | TokenRefusal>;
  signMfaChallenge(userId: number): Promise<string>;
  verifyMfaChallenge(token: string): Promise<MfaClaims | TokenRefusal>;
  accessTtlSeconds: number;
}>;

export const generateKeys = async (): Promise<KeyPair> => generateKeyPair(JWT_ALG, { crv: 'Ed25519', extractable: true });

/** The signing pair: given PEMs, else `dataDir/keys`, else generated once there (unless `generate: false`). */
export const loadKeys = async (
  opts: Readonly<{ privatePem?: string | undefined; publicPem?: string | undefined; dataDir: string; generate?: boolean }>,
): Promise<KeyPair> => {
  if (opts.privatePem && opts.publicPem) {
    return { privateKey: await importPKCS8(opts.privatePem, JWT_ALG), publicKey: await importSPKI(opts.publicPem, JWT_ALG) };
  }
  const dir = join(opts.dataDir, 'keys');
  const file = jwtKeyFile(opts.dataDir);
  const read = async (): Promise<KeyPair> => {
    const jwk = JSON.parse(await readFile(file, 'utf8')) as JWK;
    const { d: _d, ...pub } = jwk;
    return { privateKey: (await importJWK(jwk, JWT_ALG)) as CryptoKey, publicKey: (await importJWK(pub, JWT_ALG)) as CryptoKey };
  };
  try {
    return await read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (opts.generate === false) throw new MissingKeyError(`no JWT key pair given and ${file} does not exist`);
  const keys = await generateKeys();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, JSON.stringify(await exportJWK(keys.privateKey)), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process generated it first: everyone uses that one.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return read();
  }
  return keys;
};

const refusal = (error: unknown): TokenRefusal => (error instanceof joseErrors.JWTExpired ? 'expired' : 'invalid');

export const createTokens = (deps: Readonly<{ keys: KeyPair; accessTtlSeconds: number; mfaTtlSeconds: number }>): Tokens => {
  const sign = (typ: string, sub: number, ttl: number, extra: Record<string, unknown>, jti: string = randomUUID()) =>
    new SignJWT(extra)
      .setProtectedHeader({ alg: JWT_ALG, typ })
      .setSubject(String(sub))
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime(`${ttl}s`)
      .setJti(jti)
      .sign(deps.keys.privateKey);

  const verify = async (token: string, typ: string) =>
    jwtVerify(token, deps.keys.publicKey, { algorithms: [JWT_ALG], issuer: ISSUER, typ, requiredClaims: ['sub', 'exp', 'jti'] });

  const subject = (sub: string | undefined): number | undefined => {
    const n = Number(sub);
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  };

  // Same bytes, same verdict: verified access tokens are cached until expiry (the session is still read per request).
  const verified = new Map<string, AccessClaims & { exp: number }>();
  const remember = (token: string, claims: AccessClaims & { exp: number }) => {
    if (verified.size >= 20_000) verified.delete(verified.keys().next().value!);
    verified.set(token, claims);
  };

  return {
    accessTtlSeconds: deps.accessTtlSeconds,
    signAccess: ({ userId, sessionId }) => sign(ACCESS_TYP, userId, deps.accessTtlSeconds, { sid: sessionId }),
    verifyAccess: async (token) => {
      const known = verified.get(token);
      if (known && known.exp * 1000 > Date.now()) return { userId: known.userId, sessionId: known.sessionId };
      try {
        const { payload } = await verify(token, ACCESS_TYP);
        const userId = subject(payload.sub);
        if (userId === undefined || typeof payload.sid !== 'string') return 'invalid';
        remember(token, { userId, sessionId: payload.sid, exp: payload.exp! });
        return { userId, sessionId: payload.sid };
      } catch (error) {
        if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'typ') {
          return await verify(token, MFA_TYP).then(
            () => 'mfa' as const,
            () => 'invalid' as const,
          );
        }
        return refusal(error);
      }
    },
    signMfaChallenge: (userId) => sign(MFA_TYP, userId, deps.mfaTtlSeconds, {}),
    verifyMfaChallenge: async (token) => {
      try {
        const { payload } = await verify(token, MFA_TYP);
        const userId = subject(payload.sub);
        return userId !== undefined ? { userId, jti: payload.jti!, expiresAt: new Date(payload.exp! * 1000) } : 'invalid';
      } catch (error) {
        return refusal(error);
      }
    },
  };
};
