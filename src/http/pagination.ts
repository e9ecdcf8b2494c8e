import { z } from './validate.js';

/** Spec, Pagination: page 1..2^53-1 (default 1), take 1..max (default 20; max 20, or 30 on three routes). */
export const paginationFields = (maxTake: 20 | 30 = 20) => ({
  page: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(1),
  take: z.coerce.number().int().min(1).max(maxTake).default(20),
});

/** A boolean in a query string: only "true" and "false" (z.coerce.boolean would read "false" as true). */
export const queryBoolean = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

export { offsetOf, pageOf, type Page, type PageRequest } from '../shared/page.js';
