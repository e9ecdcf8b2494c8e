import { ERROR_STATUS, refusalFields, type AppError } from '../shared/app-error.js';
import type { Ack } from './protocol.js';

/** An acknowledgement's status is the HTTP number of the class, so clients learn one set. */
export const ACK_STATUS = ERROR_STATUS;

export const ackOf = (error: AppError): Exclude<Ack, { status: 200 }> => ({
  status: ACK_STATUS[error.errorClass],
  ...refusalFields(error),
});
