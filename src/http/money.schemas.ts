import { ADMIN_TIP_TAGS } from '../domain/wallet/wallet.events.js';
import { required } from '../shared/zod.js';
import { currencyId, DecimalString, userId, withScales } from './money-fields.schemas.js';
import { z } from './validate.js';

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

export { WithdrawalIdBody, WithdrawalRejectBody } from '../commands/admin-operations/withdrawals.schemas.js';

/** PUT /user/{id}/balance: the balance to set; zero is allowed, more decimals than the currency has are not. */
export const SetBalanceBody = withScales(z.object({ balance: DecimalString, currencyId }), [
  { field: 'balance', scale: 'currency', positive: false },
]).openapi('SetBalanceBody');
export const BalanceUserParams = z.object({
  id: z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .positive('must be a positive integer')
    .max(Number.MAX_SAFE_INTEGER),
});

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
