import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import type pg from 'pg';

/** Seals MFA secrets at rest with AES-256-GCM: the database alone does not give away second factors. */
export const createSealer = (key: Buffer) => {
  if (key.length !== 32) throw new Error('MFA encryption key must be 32 bytes');
  return {
    seal: (plain: string): string => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
    },
    open: (sealed: string): string => {
      const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
      const decipher = createDecipheriv('aes-256-gcm', key, iv!);
      decipher.setAuthTag(tag!);
      return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
    },
  };
};

export type Mfa = Readonly<{
  /** Starts enrolment: a new secret kept pending until enabled. */
  setup(userId: number, label: string): Promise<{ secret: string; otpauthUrl: string }>;
  /** Checks a code against the pending secret and makes it the active one. */
  confirmPending(userId: number, code: string): Promise<boolean>;
  /** Checks a code against the active secret; each time step is accepted once. */
  check(userId: number, code: string): Promise<boolean>;
  clear(userId: number): Promise<void>;
}>;

const ISSUER = 'Casino';
/** One step (30 s) of clock drift either way. */
const TOLERANCE = 30;

export const createMfa = (deps: Readonly<{ pool: pg.Pool; key: Buffer; now?: () => number }>): Mfa => {
  const sealer = createSealer(deps.key);
  const epoch = () => Math.floor((deps.now?.() ?? Date.now()) / 1000);

  const stepOf = async (secret: string, code: string, afterTimeStep: number | undefined): Promise<number | undefined> => {
    if (!/^\d{6}$/.test(code)) return undefined;
    const result = await verify({ secret, token: code, epoch: epoch(), epochTolerance: TOLERANCE, ...(afterTimeStep === undefined ? {} : { afterTimeStep }) })
      .catch(() => ({ valid: false as const }));
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  };

  /** Records the step only if it is newer than the last one: two concurrent uses of one code cannot both pass. */
  const consume = async (userId: number, step: number, column: 'mfa_secret' | 'mfa_pending_secret', promote: boolean): Promise<boolean> => {
    const { rowCount } = await deps.pool.query(
      `UPDATE user_credentials SET last_totp_step = $2, updated_at = now()
         ${promote ? ', mfa_secret = mfa_pending_secret, mfa_pending_secret = NULL' : ''}
       WHERE user_id = $1 AND ${column} IS NOT NULL AND (last_totp_step IS NULL OR last_totp_step < $2)`,
      [userId, step]);
    return (rowCount ?? 0) > 0;
  };

  const load = async (userId: number) => (await deps.pool.query<{ mfa_secret: string | null; mfa_pending_secret: string | null; last_totp_step: string | null }>(
    'SELECT mfa_secret, mfa_pending_secret, last_totp_step FROM user_credentials WHERE user_id = $1', [userId])).rows[0];

  return {
    setup: async (userId, label) => {
      const secret = generateSecret();
      await deps.pool.query(
        `INSERT INTO user_credentials (user_id, mfa_pending_secret) VALUES ($1, $2)
         ON CONFLICT (user_id) DO UPDATE SET mfa_pending_secret = EXCLUDED.mfa_pending_secret, updated_at = now()`,
        [userId, sealer.seal(secret)]);
      return { secret, otpauthUrl: generateURI({ issuer: ISSUER, label, secret }) };
    },
    confirmPending: async (userId, code) => {
      const row = await load(userId);
      if (!row?.mfa_pending_secret) return false;
      const last = row.last_totp_step === null ? undefined : Number(row.last_totp_step);
      const step = await stepOf(sealer.open(row.mfa_pending_secret), code, last);
      return step !== undefined && consume(userId, step, 'mfa_pending_secret', true);
    },
    check: async (userId, code) => {
      const row = await load(userId);
      if (!row?.mfa_secret) return false;
      const last = row.last_totp_step === null ? undefined : Number(row.last_totp_step);
      const step = await stepOf(sealer.open(row.mfa_secret), code, last);
      return step !== undefined && consume(userId, step, 'mfa_secret', false);
    },
    clear: async (userId) => {
      await deps.pool.query('UPDATE user_credentials SET mfa_secret = NULL, mfa_pending_secret = NULL, updated_at = now() WHERE user_id = $1', [userId]);
    },
  };
};
