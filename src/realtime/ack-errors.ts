import { refusalFields, type AppError, type ErrorClass } from '../shared/app-error.js';
import type { Ack } from './protocol.js';

/** The one table from an AppError's class to an acknowledgement's status (the HTTP numbers, so clients learn one set). */
export const ACK_STATUS = {
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

export const ackOf = (error: AppError): Exclude<Ack, { status: 200 }> => ({
  status: ACK_STATUS[error.errorClass],
  ...refusalFields(error),
});
