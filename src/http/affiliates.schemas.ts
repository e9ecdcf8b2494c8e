import { paginationFields } from './pagination.js';
import { z } from './validate.js';

const userId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const AFFILIATE_USERS_SORTS = ['CREATED_AT', 'CAMPAIGN', 'WAGERED_AMOUNT'] as const;

/** Spec: every field required (page and take have defaults elsewhere, but here the body must carry them). */
export const AffiliateUsersBody = z
  .object({
    sortBy: z.enum(AFFILIATE_USERS_SORTS),
    sortOrder: z.enum(['asc', 'desc']),
    where: z.object({ ownerId: userId }),
    page: paginationFields(20).page.unwrap(),
    take: paginationFields(20).take.unwrap(),
  })
  .openapi('AffiliateUsersBody');

export const AffiliateFindOneBody = z.object({ where: z.object({ userId }) }).openapi('AffiliateFindOneBody');
