import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { validationFailed } from '../commands/errors.js';
import { unredacted, type Logger } from '../infra/logger.js';
import { unavailableDependency } from '../infra/dependency-errors.js';
import { AppendRefused, StoreUnavailable } from '../infra/event-store/event-store.port.js';
import { AppError, ERROR_STATUS, refusalFields, type ErrorClass, type ErrorDetail } from '../shared/app-error.js';

export { AUTH_ERRORS, authError } from '../auth/auth.errors.js';
export type { ErrorDetail };

declare module 'express-serve-static-core' {
  interface Request {
    /** From `x-request-id` when the caller sent a sane one, else generated; echoed on the response. */
    id: string;
    log: Logger;
  }
}

export type ErrorBody = Readonly<{
  statusCode: number;
  code: string;
  message: string;
  details?: readonly ErrorDetail[];
  requestId?: string;
}>;

/** A response's status is the class's entry in the one table. */
export const HTTP_STATUS = ERROR_STATUS;

const classOf = (status: number): ErrorClass =>
  (Object.entries(HTTP_STATUS).find(([, s]) => s === status)?.[0] as ErrorClass | undefined) ?? (status >= 500 ? 'unavailable' : 'invalid');

/** An AppError that leaves as exactly this response (its status may be one no class names, e.g. a body parser's 415). */
export class HttpError extends AppError {
  override readonly name: string = 'HttpError';
  constructor(
    readonly statusCode: number,
    code: string,
    message: string,
    details?: readonly ErrorDetail[],
  ) {
    super(classOf(statusCode), code, message, details);
  }

  static of(error: AppError): HttpError {
    if (error instanceof HttpError) return error;
    const http = new HttpError(HTTP_STATUS[error.errorClass], error.code, error.message, error.details);
    return Object.assign(http, { retryAfterSeconds: error.retryAfterSeconds });
  }

  toBody(): ErrorBody {
    return { statusCode: this.statusCode, ...refusalFields(this) };
  }
}

export type Location = 'body' | 'query' | 'params' | 'headers';

export const zodToHttp = (error: ZodError, location: Location): HttpError =>
  HttpError.of(
    validationFailed(
      error.issues.map((issue) => ({
        field: [location, ...issue.path.map(String)].join('.'),
        message: issue.message,
      })),
    ),
  );

const REQUEST_ID = /^[\w.:-]{1,128}$/;

type RequestContext = Readonly<{ id: string; log: Logger }>;

/** An id (the caller's sane `x-request-id`), its lazily bound logger and one access line: on node's own objects, shared by both paths. */
/**
 * A URL as the access log keeps it: the path and the names of its query parameters, never their values (an OAuth
 * `code` or `state`, a searched e-mail address, a token would otherwise sit in every log line).
 */
export const loggableUrl = (url: string): string => {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const names = url
    .slice(at + 1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => `${pair.split('=')[0]}=*`);
  return `${url.slice(0, at)}?${names.join('&')}`;
};

export const beginRequest = (logger: Logger, access: Logger, req: IncomingMessage, res: ServerResponse): RequestContext => {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  res.setHeader('x-request-id', id);
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const durationMs = Number((process.hrtime.bigint() - started) / 1000n) / 1000;
    const line = {
      reqId: id,
      method: req.method,
      url: loggableUrl((req as { originalUrl?: string }).originalUrl ?? req.url ?? ''),
      statusCode: res.statusCode,
      durationMs,
    };
    if (res.statusCode >= 500) access.error(line, 'request failed');
    else access.info(line, 'request completed');
  });
  let log: Logger | undefined;
  return {
    id,
    get log() {
      return (log ??= logger.child({ reqId: id }));
    },
  };
};

/** One access line per request, of fields chosen here: none is a redaction path (they match keys, never text inside the URL). */
export const requestContext = (logger: Logger): RequestHandler => {
  const access = unredacted(logger);
  return (req, res, next) => {
    const context = beginRequest(logger, access, req, res);
    req.id = context.id;
    req.log = context.log;
    next();
  };
};

export const notFound: RequestHandler = (req, _res, next) => {
  next(new HttpError(404, 'NOT_FOUND', `Cannot ${req.method} ${req.path}`));
};

/** body-parser marks its errors with `type` and a 4xx `status`. */
type ParserError = Error & { type?: string; status?: number; expose?: boolean; limit?: number };

const fromParser = (error: ParserError): HttpError | undefined => {
  if (error.type === 'entity.parse.failed') return new HttpError(400, 'INVALID_JSON', 'Request body is not valid JSON');
  if (error.type === 'entity.too.large') {
    return new HttpError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large', [
      { field: 'body', message: `must be at most ${error.limit} bytes` },
    ]);
  }
  if (typeof error.status === 'number' && error.status >= 400 && error.status < 500 && error.expose) {
    return new HttpError(error.status, 'BAD_REQUEST', error.message);
  }
  return undefined;
};

export type ErrorAnswer = Readonly<{ statusCode: number; headers: Readonly<Record<string, string>>; body: ErrorBody }>;

/** Every error leaves as `{statusCode, code, message, details?}`: the one mapping, for express and the lean internal path. */
export const errorAnswer = (error: unknown, context: Readonly<{ id: string; log: Logger }>, method?: string, url?: string): ErrorAnswer => {
  const known =
    error instanceof AppError
      ? HttpError.of(error)
      : error instanceof ZodError
        ? zodToHttp(error, 'body')
        : error instanceof AppendRefused
          ? new HttpError(400, error.code, 'The request holds a value that cannot be stored')
          : error instanceof StoreUnavailable
            ? new HttpError(503, error.code, 'The event store cannot take writes now; try again')
            : error instanceof Error
              ? fromParser(error as ParserError)
              : undefined;
  if (known) {
    if (known.statusCode >= 500) context.log.warn({ err: error, reqId: context.id }, 'dependency unavailable');
    const headers: Record<string, string> = {};
    if (known.retryAfterSeconds !== undefined) headers['Retry-After'] = String(known.retryAfterSeconds);
    if (known.statusCode === 503) headers['Retry-After'] = '1';
    return { statusCode: known.statusCode, headers, body: known.toBody() };
  }
  const down = unavailableDependency(error);
  if (down) {
    // A dependency outage is not a bug: the caller may retry, and /health names the failing check.
    context.log.warn({ err: error, reqId: context.id, dependency: down }, 'dependency unavailable');
    const body = new HttpError(503, 'SERVICE_UNAVAILABLE', `Temporarily unavailable (${down}); retry shortly`).toBody();
    return { statusCode: 503, headers: { 'Retry-After': '1' }, body };
  }
  context.log.error({ err: error, reqId: context.id, method, url }, 'unhandled error');
  return {
    statusCode: 500,
    headers: {},
    body: { statusCode: 500, code: 'INTERNAL_ERROR', message: 'Internal server error', requestId: context.id },
  };
};

/** Express error middleware, registered last. */
export const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const answer = errorAnswer(error, { id: req.id, log: req.log ?? logger }, req.method, req.originalUrl);
    res.set(answer.headers).status(answer.statusCode).json(answer.body);
  };
