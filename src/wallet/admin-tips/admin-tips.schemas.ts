import { ADMIN_TIP_TAGS } from '../../domain/wallet/wallet.events.js';
import { looseUserId } from '../../http/filters.js';
import { currencyId, DecimalString, userId, withScales } from '../../http/money-fields.schemas.js';
import { paginationFields } from '../../http/pagination.js';
import { z } from '../../http/validate.js';
import { required } from '../../shared/zod.js';

/**
 * The tag a tip or deduction created without one is listed with: the record's `tag` is a required AdminTipTag, and OTHER is
 * the spec's tag for "none of the named reasons". The event keeps what the admin sent (no tag); the lists answer OTHER.
 */
export const UNTAGGED_TIP_TAG = 'OTHER' satisfies (typeof ADMIN_TIP_TAGS)[number];

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

const TipParty = z.object({ id: z.number().int(), username: z.string() });

/** Spec "Admin tip" record as GET /admin-tips answers it: every field required, `tag` always one of AdminTipTag. */
export const AdminTipRecord = z
  .object({
    id: z.number().int(),
    type: z.enum(['ADD_BALANCE', 'DEDUCT_BALANCE']),
    currencyId: z.string(),
    amount: z.string().openapi({ example: '12.5' }),
    tag: z.enum(ADMIN_TIP_TAGS).openapi({ description: `${UNTAGGED_TIP_TAG} when the tip was created without a tag` }),
    notes: z.string(),
    createdAt: z.iso.datetime(),
    sender: TipParty,
    recipient: TipParty,
  })
  .openapi('AdminTip');
