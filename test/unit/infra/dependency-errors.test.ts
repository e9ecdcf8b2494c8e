import { describe, expect, it } from 'vitest';
import { unavailableDependency } from '../../../src/infra/dependency-errors.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('unavailableDependency', () => {
  it('when PostgreSQL ends or refuses connections, then the database is named', () => {
    expect(unavailableDependency(withCode('57P01', 'terminating connection due to administrator command'))).toBe('database');
    expect(unavailableDependency(withCode('57P03', 'the database system is starting up'))).toBe('database');
    expect(unavailableDependency(withCode('08006'))).toBe('database');
    expect(unavailableDependency(withCode('ECONNREFUSED'))).toBe('database');
    expect(unavailableDependency(new Error('Connection terminated unexpectedly'))).toBe('database');
  });

  it('when Redis gave up on a command, then redis is named', () => {
    const e = new Error('Reached the max retries per request limit (which is 2).');
    e.name = 'MaxRetriesPerRequestError';
    expect(unavailableDependency(e)).toBe('redis');
    expect(unavailableDependency(new Error('Connection is closed.'))).toBe('redis');
  });

  it('when the outage is the cause of a wrapping error, then it is still found', () => {
    expect(unavailableDependency(new Error('append failed', { cause: withCode('57P01') }))).toBe('database');
  });

  it('when the error is a bug or a constraint violation, then nothing is named (it stays a 500 or a domain answer)', () => {
    expect(unavailableDependency(new TypeError('x is undefined'))).toBeUndefined();
    expect(unavailableDependency(withCode('23505', 'duplicate key'))).toBeUndefined();
    expect(unavailableDependency(undefined)).toBeUndefined();
    expect(unavailableDependency('text')).toBeUndefined();
  });
});
