import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import type { Credentials } from '../commands/user-credentials.js';

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
  setup(userId: number, label: string): Promise<{ secret: string; otpauthUrl: string }>;
  confirmPending(userId: number, code: string): Promise<boolean>;
  /** Checks a code against the active secret; each time step is accepted once. */
  check(userId: number, code: string): Promise<boolean>;
  clear(userId: number): Promise<void>;
}>;

const ISSUER = 'Casino';
const TOLERANCE = 30;

export const createMfa = (deps: Readonly<{ credentials: Credentials; key: Buffer; now?: () => number }>): Mfa => {
  const sealer = createSealer(deps.key);
  const epoch = () => Math.floor((deps.now?.() ?? Date.now()) / 1000);

  const stepOf = async (secret: string, code: string, afterTimeStep: number | undefined): Promise<number | undefined> => {
    if (!/^\d{6}$/.test(code)) return undefined;
    const after = afterTimeStep === undefined ? {} : { afterTimeStep };
    const result = await verify({ secret, token: code, epoch: epoch(), epochTolerance: TOLERANCE, ...after }).catch(() => ({
      valid: false as const,
    }));
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  };

  const checkAgainst = async (userId: number, code: string, which: 'active' | 'pending'): Promise<boolean> => {
    const secrets = await deps.credentials.mfaSecrets(userId);
    const sealed = secrets?.[which];
    if (!secrets || !sealed) return false;
    const step = await stepOf(sealer.open(sealed), code, secrets.lastStep);
    return step !== undefined && deps.credentials.acceptStep(userId, step, which, which === 'pending');
  };

  return {
    setup: async (userId, label) => {
      const secret = generateSecret();
      await deps.credentials.savePendingMfa(userId, sealer.seal(secret));
      return { secret, otpauthUrl: generateURI({ issuer: ISSUER, label, secret }) };
    },
    confirmPending: (userId, code) => checkAgainst(userId, code, 'pending'),
    check: (userId, code) => checkAgainst(userId, code, 'active'),
    clear: (userId) => deps.credentials.clearMfa(userId),
  };
};
