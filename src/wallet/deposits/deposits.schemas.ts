import { looseUserId } from '../../http/filters.js';
import { paginationFields } from '../../http/pagination.js';
import { z } from '../../http/validate.js';

export const DepositsQuery = z
  .object({
    sortBy: z.enum(['CREATED_AT', 'USD_AMOUNT', 'COMPLETED_AT', 'CONFIRMED_AT']),
    sortOrder: z.enum(['asc', 'desc']),
    status: z.enum(['PENDING', 'CONFIRMED', 'COMPLETE', 'FAILED']).optional(),
    userId: looseUserId.optional(),
    ...paginationFields(20),
  })
  .openapi('DepositsQuery');
