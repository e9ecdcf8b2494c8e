import { required, z } from '../../shared/zod.js';

const withdrawalId = z
  .string({ error: required('a string') })
  .trim()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters');

export const WithdrawalIdBody = z.object({ id: withdrawalId }).openapi('WithdrawalIdBody');
export const WithdrawalRejectBody = z
  .object({
    id: withdrawalId,
    rejectReason: z
      .string({ error: required('a string') })
      .trim()
      .min(1, 'must not be empty')
      .max(500, 'must be at most 500 characters'),
  })
  .openapi('WithdrawalRejectBody');
