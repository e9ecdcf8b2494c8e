import type { Request } from 'express';
import { authOf } from './auth.adapter.js';
import { parseHeaders, z } from './validate.js';

/** Optional `Idempotency-Key`, scoped to the acting admin: a retry with the same key has no second effect and answers the same. */
export const IdempotencyKeyHeaders = z.object({
  'idempotency-key': z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .optional(),
});

/** An `Idempotency-Key` scoped to the acting admin: two admins picking the same key never swallow each other's commands. */
export const adminOperationKey = (req: Request): string | undefined => {
  const key = parseHeaders(IdempotencyKeyHeaders, req)['idempotency-key'];
  return key === undefined ? undefined : `adm${authOf(req).userId}:${key}`;
};
