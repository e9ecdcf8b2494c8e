import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hash, verify, type Algorithm } from '@node-rs/argon2';

/** OWASP Password Storage Cheat Sheet minimum for argon2id: 19 MiB, 2 iterations, 1 lane. */
// Algorithm.Argon2id is 2; the enum is an ambient const enum, so its value is written out.
const ARGON2 = { algorithm: 2 as Algorithm, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

let common: ReadonlySet<string> | undefined;
const commonPasswords = (): ReadonlySet<string> => {
  common ??= new Set(
    readFileSync(new URL('./common-passwords.txt', import.meta.url), 'utf8')
      .split('\n')
      .map((l) => l.trim().toLowerCase())
      .filter(Boolean),
  );
  return common;
};

/** OWASP ASVS 2.1: length 8 to 128 (code points, any characters), not a known common password. Returns the problem or undefined. */
export const passwordProblem = (password: string): string | undefined => {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `must be at least ${PASSWORD_MIN} characters`;
  if (length > PASSWORD_MAX) return `must be at most ${PASSWORD_MAX} characters`;
  if (commonPasswords().has(password.toLowerCase())) return 'is too common';
  return undefined;
};

export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2);

export type PasswordVerifier = Readonly<{
  /** Verifies against the stored hash, or against a dummy hash when there is none so unknown accounts cost the same. */
  verify(storedHash: string | null | undefined, password: string): Promise<boolean>;
}>;

export const createPasswordVerifier = async (): Promise<PasswordVerifier> => {
  const dummy = await hashPassword(randomBytes(16).toString('hex'));
  return {
    verify: async (storedHash, password) => {
      const ok = await verify(storedHash ?? dummy, password).catch(() => false);
      return Boolean(storedHash) && ok;
    },
  };
};
