import { left, type Either } from 'fp-ts/lib/Either.js';

export type ErrorClass =
  'invalid' | 'unauthenticated' | 'forbidden' | 'not-found' | 'conflict' | 'too-large' | 'unprocessable' | 'rate-limited' | 'unavailable';

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
