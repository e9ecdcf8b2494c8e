/** The one HTTP client of the console: same origin, cookies, one silent refresh on a 401, the API's error shape kept whole. */

export type ApiErrorBody = { statusCode: number; code: string; message: string; details?: { field: string; message: string }[] };

/** An API refusal; `body` is the API's `{statusCode, code, message, details}` (react-admin reads `status` and `body`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message || `HTTP ${status}`);
  }
}

/** A JSON body sent as typed, for the few API fields that are JSON numbers (prizes): no float round trip. */
export class RawJson {
  constructor(readonly text: string) {}
}

let refreshing: Promise<boolean> | undefined;

/** POST /admin/auth/refresh once for all callers waiting on an expired access token. */
export const refreshSession = (): Promise<boolean> => {
  refreshing ??= fetch('/admin/auth/refresh', { method: 'POST', credentials: 'same-origin' })
    .then(
      (r) => r.ok,
      () => false,
    )
    .finally(() => {
      setTimeout(() => {
        refreshing = undefined;
      }, 0);
    });
  return refreshing;
};

export type Answer<T> = { status: number; json: T; headers: Headers };

const asError = async (res: Response): Promise<ApiError> => {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as ApiErrorBody;
    if (body && typeof body.code === 'string') return new ApiError(res.status, body);
  } catch {
    /* not the API's shape */
  }
  return new ApiError(res.status, { statusCode: res.status, code: 'HTTP_ERROR', message: text.slice(0, 200) || res.statusText });
};

/** The highest ledger position a command of this tab reached (`commit/prepare`, as the API answers it). */
let lastWrite: string | undefined;
const POSITION = /^(\d+)\/(\d+)$/;
const rememberPosition = (value: string | null): void => {
  const next = value ? POSITION.exec(value) : null;
  if (!next) return;
  const known = lastWrite ? POSITION.exec(lastWrite) : null;
  const later =
    !known || BigInt(next[1]!) > BigInt(known[1]!) || (BigInt(next[1]!) === BigInt(known[1]!) && BigInt(next[2]!) > BigInt(known[2]!));
  if (later) lastWrite = value!;
};

/** Calls the API: JSON parsed as sent (money stays a decimal string); a 401 on a signed-in call is retried once after a refresh. */
export const api = async <T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  retry = true,
): Promise<Answer<T>> => {
  const reading = method === 'GET';
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(body === undefined || body instanceof Blob ? {} : { 'content-type': 'application/json' }),
      // A read after this admin's command waits until the read models have applied it (read-your-writes).
      ...(reading && lastWrite ? { 'x-ledger-position': lastWrite } : {}),
      ...headers,
    },
    // A file (a statement upload) goes as it is, its media type in `headers`.
    ...(body === undefined ? {} : { body: body instanceof Blob ? body : body instanceof RawJson ? body.text : JSON.stringify(body) }),
  });
  if (res.status === 401 && retry && !path.startsWith('/admin/auth/') && (await refreshSession()))
    return api<T>(method, path, body, headers, false);
  if (!res.ok) throw await asError(res);
  if (!reading) rememberPosition(res.headers.get('x-ledger-position'));
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : undefined) as T, headers: res.headers };
};

/** A query string; nested objects as bracketed keys (`where[status]=X`), the shape the API's GET lists read. */
export const query = (params: Record<string, unknown>): string => {
  const out = new URLSearchParams();
  const add = (key: string, value: unknown): void => {
    if (value === undefined || value === null || value === '') return;
    if (Array.isArray(value)) value.forEach((v) => add(`${key}[]`, v));
    else if (typeof value === 'object') Object.entries(value as Record<string, unknown>).forEach(([k, v]) => add(`${key}[${k}]`, v));
    else out.append(key, String(value));
  };
  Object.entries(params).forEach(([k, v]) => add(k, v));
  const s = out.toString();
  return s ? `?${s}` : '';
};

/** A fresh Idempotency-Key for one money command (a retry of the same click reuses it). */
export const idempotencyKey = (): string => crypto.randomUUID();
