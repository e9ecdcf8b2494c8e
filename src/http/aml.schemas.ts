import { z } from './validate.js';

export const AmlFlagParams = z.object({ id: z.string().min(1).max(200) });
export const AmlFlagsQuery = z.object({ status: z.enum(['OPEN', 'CLEARED']).optional() });
/** Without an assignee, the flag is assigned to the admin who asks. */
export const AssignAmlFlagBody = z
  .object({ assigneeUserId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional() })
  .openapi('AssignAmlFlagBody');
export const ClearAmlFlagBody = z.object({ note: z.string().trim().min(1).max(2000) }).openapi('ClearAmlFlagBody');

export const AmlFlagRecord = z
  .object({
    id: z.string(),
    userId: z.number().int(),
    kind: z.enum(['linked-transactions', 'withdrawal-review']),
    linkedUsd: z.string().openapi({ description: 'USD: the linked total (or the withdrawal) that raised the flag' }),
    thresholdUsd: z.string(),
    windowHours: z.number().int(),
    withdrawalId: z.string().nullable(),
    status: z.enum(['OPEN', 'CLEARED']),
    assigneeUserId: z.number().int().nullable(),
    note: z.string().nullable(),
    raisedAt: z.string(),
    clearedAt: z.string().nullable(),
    clearedByUserId: z.number().int().nullable(),
  })
  .openapi('AmlFlag');
export const AmlFlagList = z.object({ data: z.array(AmlFlagRecord) }).openapi('AmlFlagList');
