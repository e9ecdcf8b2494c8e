import type { Request } from 'express';
import { z } from '../shared/zod.js';
import { zodToHttp, type Location } from './http-errors.js';

export { MAX_DECIMAL_CHARS, z } from '../shared/zod.js';

const parseAt = <S extends z.ZodType>(schema: S, value: unknown, location: Location): z.output<S> => {
  const result = schema.safeParse(value);
  if (!result.success) throw zodToHttp(result.error, location);
  return result.data;
};

/** Parses `req.body`; a missing body counts as `{}` so that "field required" names the field. Throws 400 VALIDATION_FAILED. */
export const parseBody = <S extends z.ZodType>(schema: S, req: Pick<Request, 'body'>): z.output<S> =>
  parseAt(schema, req.body ?? {}, 'body');
export const parseParams = <S extends z.ZodType>(schema: S, req: Readonly<{ params: unknown }>): z.output<S> =>
  parseAt(schema, req.params, 'params');
export const parseQuery = <S extends z.ZodType>(schema: S, req: Pick<Request, 'query'>): z.output<S> => parseAt(schema, req.query, 'query');
export const parseHeaders = <S extends z.ZodType>(schema: S, req: Readonly<{ headers: unknown }>): z.output<S> =>
  parseAt(schema, req.headers, 'headers');

/** Years 0001-9999 UTC, zone applied: what timestamptz and JavaScript both round-trip; outside them a filter is a 400. */
const STORABLE_FROM = Date.parse('0001-01-01T00:00:00Z');
const STORABLE_UNTIL = Date.parse('+010000-01-01T00:00:00Z');
export const isStorableInstant = (ms: number): boolean => Number.isFinite(ms) && ms >= STORABLE_FROM && ms < STORABLE_UNTIL;

/** The one ISO 8601 date-time with zone of every request: checked for the range PostgreSQL stores. */
export const storableDateTime = z.iso
  .datetime({ offset: true })
  // Unparseable is the format check's issue already: one issue per field.
  .refine(
    (s) => Number.isNaN(Date.parse(s)) || isStorableInstant(Date.parse(s)),
    'must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z once the zone is applied',
  );
