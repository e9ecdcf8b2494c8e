import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import { ZodError } from 'zod';
import type { LedgerError } from '../commands/ledger.types.js';
import type { LimitsError } from '../domain/limits/limits.errors.js';
import type { UserError } from '../domain/user/user.errors.js';
import { leaderboardMessage, type LeaderboardError } from '../leaderboards/leaderboard.errors.js';
import type { Logger } from '../infra/logger.js';
import { unavailableDependency } from '../infra/dependency-errors.js';
import { AppendRefused, StoreUnavailable } from '../infra/event-store/event-store.port.js';
import { AppError, refusalFields, type ErrorClass, type ErrorDetail } from '../shared/app-error.js';

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

/** The one table from an AppError's class to its HTTP status. */
export const HTTP_STATUS = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'too-large': 413,
  unprocessable: 422,
  'rate-limited': 429,
  unavailable: 503,
} as const satisfies Record<ErrorClass, number>;

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

/** Every ledger rejection, its status and stable code. Adding a tag to LedgerError fails the build here until it is mapped. */
export const LEDGER_ERROR_HTTP = {
  InvalidAmount: [400, 'VALIDATION_FAILED'],
  InsufficientFunds: [409, 'INSUFFICIENT_FUNDS'],
  DepositNotFound: [404, 'DEPOSIT_NOT_FOUND'],
  DepositInvalidState: [409, 'DEPOSIT_INVALID_STATE'],
  BetNotFound: [404, 'BET_NOT_FOUND'],
  BetInvalidState: [409, 'BET_INVALID_STATE'],
  WithdrawalNotFound: [404, 'WITHDRAWAL_NOT_FOUND'],
  WithdrawalInvalidState: [409, 'WITHDRAWAL_INVALID_STATE'],
  IdempotencyConflict: [422, 'IDEMPOTENCY_KEY_REUSED'],
  UserNotFound: [404, 'USER_NOT_FOUND'],
  UsernameRequired: [403, 'USERNAME_REQUIRED'],
  UserSelfExcluded: [403, 'USER_SELF_EXCLUDED'],
  BetLimitExceeded: [403, 'BET_LIMIT_EXCEEDED'],
  UserBanned: [403, 'USER_BANNED'],
} as const satisfies Record<LedgerError['_tag'], readonly [number, string]>;

const ledgerMessage = (e: LedgerError): string => {
  switch (e._tag) {
    case 'InvalidAmount':
      return 'Validation failed';
    case 'InsufficientFunds':
      return `Insufficient ${e.currencyId} balance: ${e.balance} available, ${e.required} required`;
    case 'DepositNotFound':
      return `Deposit ${e.depositId} not found`;
    case 'DepositInvalidState':
      return `Cannot ${e.action} deposit ${e.depositId} in status ${e.status}`;
    case 'BetNotFound':
      return `Bet ${e.betId} not found`;
    case 'BetInvalidState':
      return `Cannot ${e.action} bet ${e.betId} in status ${e.status}`;
    case 'WithdrawalNotFound':
      return `Withdrawal ${e.withdrawalId} not found`;
    case 'WithdrawalInvalidState':
      return `Cannot ${e.action} withdrawal ${e.withdrawalId} in status ${e.status}`;
    case 'IdempotencyConflict':
      return e.message;
    case 'UserNotFound':
      return `User ${e.userId} not found`;
    case 'UsernameRequired':
      return 'Set a username before betting or withdrawing';
    case 'UserSelfExcluded':
      return `User ${e.userId} is self-excluded until ${e.expiresAt}`;
    case 'BetLimitExceeded':
      return `The bet is above the user's bet limit of ${e.betLimit} USD`;
    case 'UserBanned':
      return `User ${e.userId} is banned`;
    default:
      return assertNever(e);
  }
};

export const USER_ERROR_HTTP = {
  UserNotFound: [404, 'USER_NOT_FOUND', 'User not found'],
  UserAlreadyRegistered: [409, 'AUTH_USER_EXISTS', 'User already exists'],
  UserExists: [409, 'AUTH_USER_EXISTS', 'E-mail or username already taken'],
  UsernameAlreadySet: [409, 'USERNAME_ALREADY_SET', 'The username is already set'],
  MfaAlreadyEnabled: [409, 'MFA_ALREADY_ENABLED', 'Two-factor authentication is already enabled'],
  MfaNotEnabled: [409, 'MFA_NOT_ENABLED', 'Two-factor authentication is not enabled'],
  AlreadyBanned: [409, 'USER_ALREADY_BANNED', 'The user is already banned'],
  NotBanned: [409, 'USER_NOT_BANNED', 'The user is not banned'],
  SelfTarget: [403, 'FORBIDDEN', 'Administrators cannot do this to themselves'],
} as const satisfies Record<UserError['_tag'], readonly [number, string, string]>;

export const userErrorToHttp = (e: UserError): HttpError => {
  const [status, code, message] = USER_ERROR_HTTP[e._tag];
  return new HttpError(status, code, message);
};

export const orThrowUser = <T>(result: Either<UserError, T>): T => {
  if (isLeft(result)) throw userErrorToHttp(result.left);
  return result.right;
};

export const LIMITS_ERROR_HTTP = {
  ExclusionNotInFuture: [400, 'VALIDATION_FAILED'],
  NoActiveExclusion: [404, 'SELF_EXCLUSION_NOT_FOUND'],
  ExclusionWouldShorten: [409, 'SELF_EXCLUSION_ACTIVE'],
} as const satisfies Record<LimitsError['_tag'], readonly [number, string]>;

export const limitsErrorToHttp = (e: LimitsError): HttpError => {
  if (e._tag === 'ExclusionNotInFuture') return validationFailed([{ field: 'body.excludeUntil', message: 'must be in the future' }]);
  const [status, code] = LIMITS_ERROR_HTTP[e._tag];
  return new HttpError(
    status,
    code,
    e._tag === 'NoActiveExclusion'
      ? `User ${e.userId} has no active self-exclusion`
      : `User ${e.userId} is self-excluded until ${e.expiresAt}; lift the exclusion to shorten it`,
  );
};

export const LEADERBOARD_ERROR_HTTP = {
  LeaderboardNotFound: [404, 'LEADERBOARD_NOT_FOUND'],
  ScheduleNotFound: [404, 'LEADERBOARD_SCHEDULE_NOT_FOUND'],
  LeaderboardUserNotFound: [404, 'LEADERBOARD_USER_NOT_FOUND'],
  LeaderboardNotSettled: [409, 'LEADERBOARD_NOT_SETTLED'],
  LeaderboardUserNotWinner: [409, 'LEADERBOARD_USER_NOT_WINNER'],
  PrizeAlreadyReceived: [409, 'PRIZE_ALREADY_RECEIVED'],
  PrizeExceedsRemaining: [409, 'PRIZE_EXCEEDS_REMAINING'],
  PrizeInvalid: [400, 'VALIDATION_FAILED'],
  PrizeIdempotencyConflict: [422, 'IDEMPOTENCY_KEY_REUSED'],
} as const satisfies Record<LeaderboardError['_tag'], readonly [number, string]>;

export const leaderboardErrorToHttp = (e: LeaderboardError): HttpError => {
  const [status, code] = LEADERBOARD_ERROR_HTTP[e._tag];
  if (e._tag === 'PrizeInvalid') return validationFailed([{ field: `body.${e.field}`, message: e.message }]);
  return new HttpError(status, code, leaderboardMessage(e));
};

export { chatError as chatErrorToHttp } from '../commands/chat.errors.js';

const assertNever = (x: never): never => {
  throw new Error(`unmapped ledger error: ${JSON.stringify(x)}`);
};

/** Ledger fields are body field names ("amount"); details name the location like zod errors do ("body.amount"). */
const qualify = (field: string): string => (/^(body|query|params|headers)\./.test(field) ? field : `body.${field}`);

export const ledgerErrorToHttp = (e: LedgerError): HttpError => {
  const [status, code] = LEDGER_ERROR_HTTP[e._tag];
  const details = e._tag === 'InvalidAmount' ? [{ field: qualify(e.field), message: e.message }] : undefined;
  return new HttpError(status, code, ledgerMessage(e), details);
};

/** The value of a ledger result, or the rejection thrown as its HttpError. */
export const orThrow = <T>(result: Either<LedgerError, T>): T => {
  if (isLeft(result)) throw ledgerErrorToHttp(result.left);
  return result.right;
};

export type Location = 'body' | 'query' | 'params' | 'headers';

export const validationFailed = (details: readonly ErrorDetail[]): HttpError =>
  new HttpError(400, 'VALIDATION_FAILED', 'Validation failed', details);

export const zodToHttp = (error: ZodError, location: Location): HttpError =>
  validationFailed(
    error.issues.map((issue) => ({
      field: [location, ...issue.path.map(String)].join('.'),
      message: issue.message,
    })),
  );

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export const requestId =
  (logger: Logger): RequestHandler =>
  (req, res, next) => {
    const given = req.get('x-request-id');
    req.id = given && REQUEST_ID.test(given) ? given : randomUUID();
    req.log = logger.child({ reqId: req.id });
    res.setHeader('x-request-id', req.id);
    next();
  };

export const requestLogger: RequestHandler = (req, res, next) => {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const durationMs = Number((process.hrtime.bigint() - started) / 1000n) / 1000;
    const line = { method: req.method, url: req.originalUrl, statusCode: res.statusCode, durationMs };
    if (res.statusCode >= 500) req.log.error(line, 'request failed');
    else req.log.info(line, 'request completed');
  });
  next();
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

/** Express error middleware, registered last: everything leaves as `{statusCode, code, message, details?}`. */
export const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const log = req.log ?? logger;
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
      if (known.statusCode >= 500) log.warn({ err: error, reqId: req.id }, 'dependency unavailable');
      if (known.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(known.retryAfterSeconds));
      if (known.statusCode === 503) res.setHeader('Retry-After', '1');
      res.status(known.statusCode).json(known.toBody());
      return;
    }
    const down = unavailableDependency(error);
    if (down) {
      // A dependency outage is not a bug: the caller may retry, and /health names the failing check.
      log.warn({ err: error, reqId: req.id, dependency: down }, 'dependency unavailable');
      res.setHeader('Retry-After', '1');
      res.status(503).json(new HttpError(503, 'SERVICE_UNAVAILABLE', `Temporarily unavailable (${down}); retry shortly`).toBody());
      return;
    }
    log.error({ err: error, reqId: req.id, method: req.method, url: req.originalUrl }, 'unhandled error');
    const body: ErrorBody = { statusCode: 500, code: 'INTERNAL_ERROR', message: 'Internal server error', requestId: req.id };
    res.status(500).json(body);
  };
