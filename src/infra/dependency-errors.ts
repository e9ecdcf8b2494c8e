/** Recognises "a dependency is down" (following the cause chain), so HTTP answers 503 rather than 500. */
export type Dependency = 'database' | 'redis' | 'eventStore';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
// 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections, 08xxx connection_exception,
// 57014 query_canceled (a statement timeout: the database is too busy to answer in time).
const PG_CODES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);
const PG_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Cannot use a pool after calling end',
  'Client was closed and is not queryable',
];
const REDIS_NAMES = new Set(['MaxRetriesPerRequestError']);
const REDIS_MESSAGES = ['Connection is closed', "Stream isn't writeable", 'Reached the max retries per request limit'];

const classify = (error: unknown): Dependency | undefined => {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; message?: unknown; name?: unknown; constructor?: { name?: string } };
  const message = typeof e.message === 'string' ? e.message : '';
  const code = typeof e.code === 'string' ? e.code : '';
  const name = typeof e.name === 'string' ? e.name : (e.constructor?.name ?? '');
  if (REDIS_NAMES.has(name) || REDIS_MESSAGES.some((m) => message.includes(m))) return 'redis';
  if (PG_CODES.has(code) || code.startsWith('08') || PG_MESSAGES.some((m) => message.includes(m))) return 'database';
  if (/^(Unavailable|NotLeader|DeadlineExceeded)Error$/.test(name) || /\bUNAVAILABLE\b/.test(message)) return 'eventStore';
  if (NETWORK_CODES.has(code)) return 'database';
  return undefined;
};

export const unavailableDependency = (error: unknown): Dependency | undefined => {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    const found = classify(current);
    if (found) return found;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
};
