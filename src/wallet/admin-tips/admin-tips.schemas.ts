import { ADMIN_TIP_TAGS } from '../../domain/wallet/wallet.events.js';
import { looseUserId } from '../../http/filters.js';
import { currencyId, DecimalString, userId, withScales } from '../../http/money-fields.schemas.js';
import { paginationFields } from '../../http/pagination.js';
import { z } from '../../http/validate.js';
import { required } from '../../shared/zod.js';

/** Spec "Admin tip" create body, shared by POST /admin-tips and POST /admin-tips/deduct-balance. */
export const AdminTipBody = withScales(
  z.object({
    amount: DecimalString,
    currencyId,
    tag: z.enum(ADMIN_TIP_TAGS, { error: required(`one of ${ADMIN_TIP_TAGS.join(', ')}`) }).optional(),
    recipientUserId: userId,
    notes: z.string({ error: required('a string') }).max(300, 'must be at most 300 characters'),
  }),
  [{ field: 'amount', scale: 'currency', positive: true }],
).openapi('AdminTipCreate');

export const AdminTipsQuery = z
  .object({
    sortBy: z.enum(['AMOUNT', 'CREATED_AT', 'ID']),
    sortOrder: z.enum(['asc', 'desc']),
    senderUserId: looseUserId.optional(),
    recipientUserId: looseUserId.optional(),
    senderOrRecipientUserId: looseUserId.optional(),
    search: z.string().max(100).optional(),
    ...paginationFields(20),
  })
  .openapi('AdminTipsQuery');
