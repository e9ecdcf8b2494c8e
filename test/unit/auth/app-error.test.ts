import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { authError, AUTH_ERRORS } from '../../../src/auth/auth.errors.js';
import { HTTP_STATUS, HttpError } from '../../../src/http/http-errors.js';
import { ACK_STATUS, ackOf } from '../../../src/realtime/ack-errors.js';
import { AppError } from '../../../src/shared/app-error.js';
import { filesUnder } from '../../support/source-files.js';

describe('AppError and its two tables', () => {
  it('when an auth refusal leaves over HTTP or a socket, then both transports give it the same status', () => {
    for (const kind of Object.keys(AUTH_ERRORS) as (keyof typeof AUTH_ERRORS)[]) {
      const error = authError(kind);
      expect(ackOf(error).status, kind).toBe(HttpError.of(error).statusCode);
    }
    expect(HTTP_STATUS).toEqual(ACK_STATUS);
  });

  it('when a rate-limited AppError becomes an HttpError, then it keeps its code, message and Retry-After', () => {
    const http = HttpError.of(new AppError('rate-limited', 'TOO_MANY_REQUESTS', 'Too many attempts', undefined, 7));
    expect([http.statusCode, http.code, http.message, http.retryAfterSeconds]).toEqual([429, 'TOO_MANY_REQUESTS', 'Too many attempts', 7]);
  });

  it('when an HttpError is built from a status, then its class is the one the table maps back to that status', () => {
    for (const [errorClass, status] of Object.entries(HTTP_STATUS)) expect(new HttpError(status, 'X', 'x').errorClass).toBe(errorClass);
  });

  it('when src/auth is read, then no file imports express or src/http (the use cases know no transport)', () => {
    const root = new URL('../../../src/auth', import.meta.url).pathname;
    const offending = filesUnder(root, /\.ts$/).filter((file) => /from '(express|[./]+\/http\/[^']*)'/.test(readFileSync(file, 'utf8')));
    expect(offending).toEqual([]);
  });
});
