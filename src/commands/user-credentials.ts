import type pg from 'pg';

/** The sealed TOTP secrets of a user and the last time step accepted (a step is never accepted twice). */
export type MfaSecrets = Readonly<{ active: string | null; pending: string | null; lastStep: number | undefined }>;

/** The only module that reads or writes `user_credentials`: the password hash and the sealed second factor. */
export type Credentials = Readonly<{
  savePassword(userId: number, passwordHash: string): Promise<void>;
  /** Replaces the password hash (or sets the first one, for accounts made through an identity provider). */
  replacePassword(userId: number, passwordHash: string): Promise<void>;
  passwordHash(userId: number): Promise<string | null | undefined>;
  mfaSecrets(userId: number): Promise<MfaSecrets | undefined>;
  savePendingMfa(userId: number, sealedSecret: string): Promise<void>;
  /** Records the step only if newer than the last, so two concurrent uses of one code cannot both pass. */
  acceptStep(userId: number, step: number, secret: 'active' | 'pending', promote: boolean): Promise<boolean>;
  clearMfa(userId: number): Promise<void>;
}>;

export const createCredentials = (pool: pg.Pool): Credentials => ({
  savePassword: async (userId, passwordHash) => {
    await pool.query('INSERT INTO user_credentials (user_id, password_hash) VALUES ($1, $2)', [userId, passwordHash]);
  },
  replacePassword: async (userId, passwordHash) => {
    await pool.query(
      `INSERT INTO user_credentials (user_id, password_hash) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET password_hash = EXCLUDED.password_hash, updated_at = now()`,
      [userId, passwordHash],
    );
  },
  passwordHash: async (userId) =>
    (await pool.query<{ password_hash: string | null }>('SELECT password_hash FROM user_credentials WHERE user_id = $1', [userId])).rows[0]
      ?.password_hash,
  mfaSecrets: async (userId) => {
    const { rows } = await pool.query<{ mfa_secret: string | null; mfa_pending_secret: string | null; last_totp_step: string | null }>(
      'SELECT mfa_secret, mfa_pending_secret, last_totp_step FROM user_credentials WHERE user_id = $1',
      [userId],
    );
    const row = rows[0];
    if (!row) return undefined;
    const lastStep = row.last_totp_step === null ? undefined : Number(row.last_totp_step);
    return { active: row.mfa_secret, pending: row.mfa_pending_secret, lastStep };
  },
  savePendingMfa: async (userId, sealedSecret) => {
    await pool.query(
      `INSERT INTO user_credentials (user_id, mfa_pending_secret) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET mfa_pending_secret = EXCLUDED.mfa_pending_secret, updated_at = now()`,
      [userId, sealedSecret],
    );
  },
  acceptStep: async (userId, step, secret, promote) => {
    const column = secret === 'active' ? 'mfa_secret' : 'mfa_pending_secret';
    const { rowCount } = await pool.query(
      `UPDATE user_credentials SET last_totp_step = $2, updated_at = now()
         ${promote ? ', mfa_secret = mfa_pending_secret, mfa_pending_secret = NULL' : ''}
       WHERE user_id = $1 AND ${column} IS NOT NULL AND (last_totp_step IS NULL OR last_totp_step < $2)`,
      [userId, step],
    );
    return (rowCount ?? 0) > 0;
  },
  clearMfa: async (userId) => {
    await pool.query('UPDATE user_credentials SET mfa_secret = NULL, mfa_pending_secret = NULL, updated_at = now() WHERE user_id = $1', [
      userId,
    ]);
  },
});
