import { looseUserId } from '../../http/filters.js';
import { paginationFields } from '../../http/pagination.js';
import { z } from '../../http/validate.js';
import { InternalDeposit } from '../../http/internal.answers.js';

export const DepositsQuery = z
  .object({
    sortBy: z.enum(['CREATED_AT', 'USD_AMOUNT', 'COMPLETED_AT', 'CONFIRMED_AT']),
    sortOrder: z.enum(['asc', 'desc']),
    status: z.enum(['PENDING', 'CONFIRMED', 'COMPLETE', 'FAILED']).optional(),
    userId: looseUserId.optional(),
    ...paginationFields(20),
  })
  .openapi('DepositsQuery');

const text = (max: number) =>
  z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const DepositIdParams = z.object({ id: text(128) });

/** The admin's reason for releasing or returning a held deposit: required, recorded on the event and in the audit log. */
export const HeldDepositDecisionBody = z
  .object({ reason: text(500).openapi({ description: 'Why the admin decided so; recorded on the event and in the admin audit log' }) })
  .openapi('HeldDepositDecisionBody');

/** A deposit with its hold, as the back office's decision on a held deposit answers it: the ledger's deposit view. */
export const HeldDepositRecord = InternalDeposit.extend({
  hold: z
    .enum(['HELD', 'RELEASED', 'RETURNED'])
    .nullable()
    .openapi({ description: 'HELD: completed past the deposit limit, not playable; RELEASED or RETURNED by an admin; null: never held' }),
}).openapi('HeldDepositRecord');
