import { left, type Either } from 'fp-ts/lib/Either.js';

export type ErrorClass =
  'invalid' | 'unauthenticated' | 'forbidden' | 'not-found' | 'conflict' | 'too-large' | 'unprocessable' | 'rate-limited' | 'unavailable';

/** The one table from an AppError's class to its status: HTTP answers with it, acknowledgements carry it, so clients learn one set. */
export const ERROR_STATUS = {
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

export type ErrorDetail = Readonly<{ field: string; message: string }>;

/** An expected refusal, transport-neutral: use cases answer it as a Left value or throw it. */
export class AppError extends Error {
  override readonly name: string = 'AppError';
  constructor(
    readonly errorClass: ErrorClass,
    readonly code: string,
    message: string,
    readonly details?: readonly ErrorDetail[],
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export const refusalFields = (error: AppError): Readonly<{ code: string; message: string; details?: readonly ErrorDetail[] }> => ({
  code: error.code,
  message: error.message,
  ...(error.details ? { details: error.details } : {}),
});

export type AppResult<T> = Either<AppError, T>;

export const refuse = <T = never>(error: AppError): AppResult<T> => left(error);
