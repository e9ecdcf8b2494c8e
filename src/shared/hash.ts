import { createHash } from 'node:crypto';

/** The SHA-256 of a secret as stored in place of it (refresh tokens, API keys), base64url. */
export const sha256 = (value: string): string => createHash('sha256').update(value, 'utf8').digest('base64url');
