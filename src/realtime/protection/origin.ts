import type { IncomingMessage } from 'node:http';

const ORIGIN_SHAPE = /^[a-z][a-z\d+.-]*:\/\/[^/?#@\s]+$/i;

export const canonicalOrigin = (value: string): string | undefined => {
  const text = value.trim().replace(/\/$/, '');
  if (!ORIGIN_SHAPE.test(text)) return undefined;
  try {
    const origin = new URL(text).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
};

/** A missing, `null` or malformed Origin is refused: the gateway decides what a request without Origin may do. */
export const originAllowed = (req: IncomingMessage, allowed: readonly string[]): boolean => {
  const header = req.headers.origin;
  if (typeof header !== 'string') return false;
  const origin = canonicalOrigin(header);
  return origin !== undefined && allowed.some((a) => canonicalOrigin(a) === origin);
};
