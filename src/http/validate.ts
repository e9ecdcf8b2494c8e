import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import type { Request } from 'express';
import { z } from 'zod';
import { zodToHttp, type Location } from './errors.js';

// `.openapi(...)` on schemas: the same zod schemas validate requests, type handlers and feed the OpenAPI document.
extendZodWithOpenApi(z);

export { z };

const parseAt = <S extends z.ZodType>(schema: S, value: unknown, location: Location): z.output<S> => {
  const result = schema.safeParse(value);
  if (!result.success) throw zodToHttp(result.error, location);
  return result.data;
};

/** Parses `req.body`; a missing body counts as `{}` so that "field required" names the field. Throws 400 VALIDATION_FAILED. */
export const parseBody = <S extends z.ZodType>(schema: S, req: Request): z.output<S> => parseAt(schema, req.body ?? {}, 'body');
export const parseParams = <S extends z.ZodType>(schema: S, req: Request): z.output<S> => parseAt(schema, req.params, 'params');
export const parseQuery = <S extends z.ZodType>(schema: S, req: Request): z.output<S> => parseAt(schema, req.query, 'query');
export const parseHeaders = <S extends z.ZodType>(schema: S, req: Request): z.output<S> => parseAt(schema, req.headers, 'headers');
