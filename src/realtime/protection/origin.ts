import type { IncomingMessage } from 'node:http';

/** `scheme://host[:port]` and nothing else: what a browser puts in Origin. */
const ORIGIN_SHAPE = /^[a-z][a-z\d+.-]*:\/\/[^/?#@\s]+$/i;

/** The serialised origin (lower-case, default port dropped), or undefined when `value` is not a bare origin. */
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

/** True when the request's Origin header is exactly one of `allowed` (scheme, host and port; letter case and an explicit default port do
 * not matter). A missing, `null` or malformed Origin is refused: the gateway decides what a request without Origin may do. */
export const originAllowed = (req: IncomingMessage, allowed: readonly string[]): boolean => {
  const header = req.headers.origin;
  if (typeof header !== 'string') return false;
  const origin = canonicalOrigin(header);
  return origin !== undefined && allowed.some((a) => canonicalOrigin(a) === origin);
};
