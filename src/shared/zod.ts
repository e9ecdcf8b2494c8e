import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// `.openapi(...)` on schemas: the same zod schemas validate requests and socket events and feed the OpenAPI document.
// Every schema module takes z from here, so the extension is applied before its first schema is built.
extendZodWithOpenApi(z);

export { z };

/** An error message naming what was expected, or "is required" when the field is missing. */
export const required = (expected: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? 'is required' : `must be ${expected}`;

/** Longest decimal string a filter or amount takes: far beyond any amount, far below PostgreSQL's NUMERIC limits. */
export const MAX_DECIMAL_CHARS = 64;
