import { z } from '../../shared/zod.js';

export const BanBody = z.object({ banReason: z.string().trim().min(1).max(500) }).openapi('BanUserBody');
