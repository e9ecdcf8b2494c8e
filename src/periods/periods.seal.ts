import { createHash } from 'node:crypto';
import { sealMac, sealMatches } from '../audit/seal.hash.js';
import type { ClosingBalance } from './periods.queries.js';

/** What a close's seal covers: the report and every closing balance, in one canonical text (sorted keys, sorted rows). */
export const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(value);

export const closeDigest = (report: unknown, balances: readonly ClosingBalance[]): string =>
  createHash('sha256')
    .update(canonical({ report, balances: [...balances].sort((a, b) => (a.account + a.currencyId < b.account + b.currencyId ? -1 : 1)) }))
    .digest('hex');

/** HMAC-SHA256(seal key, "period-close|<period>|<digest>"): only the key's holder can write a matching seal. */
export const closeMac = (key: Buffer, period: string, digest: string): Buffer => sealMac(key, 'period-close', period, digest);

export const closeMacMatches = (key: Buffer, period: string, digest: string, mac: Buffer): boolean =>
  sealMatches(key, mac, 'period-close', period, digest);
