import { looseUserId } from '../../http/filters.js';
import { paginationFields } from '../../http/pagination.js';
import { z } from '../../http/validate.js';

export { WithdrawalIdBody, WithdrawalRejectBody } from '../../commands/admin-operations/withdrawals.schemas.js';

export const WithdrawalsQuery = z
  .object({
    sortBy: z.enum(['CREATED_AT', 'USD_AMOUNT']),
    sortOrder: z.enum(['asc', 'desc']),
    status: z.enum(['PENDING', 'CONFIRMED', 'COMPLETE', 'DENIED', 'FAILED']).optional(),
    userId: looseUserId.optional(),
    username: z.string().max(64).optional(),
    ...paginationFields(20),
  })
  .openapi('WithdrawalsQuery');
