import { z } from './validate.js';

export const ApiKeyBody = z.object({ userId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) }).openapi('ApiKeyBody');
export const ApiKeyUserParams = z.object({ userId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
