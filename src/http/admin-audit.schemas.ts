import { ADMIN_AUDIT_ACTIONS } from '../shared/admin-actions.js';
import { looseUserId } from './filters.js';
import { paginationFields } from './pagination.js';
import { storableDateTime, z } from './validate.js';

const dateTime = storableDateTime;

/** [from, to): `to` must be later than `from` when both are given. */
export const orderedRange = (q: { from?: string | undefined; to?: string | undefined }): boolean =>
  q.from === undefined || q.to === undefined || Date.parse(q.from) < Date.parse(q.to);
export const RANGE_ORDER_ISSUE = { message: 'to must be later than from', path: ['to'] };

export const AdminAuditQuery = z
  .object({
    adminId: looseUserId.optional().openapi({ description: 'The acting admin' }),
    userId: looseUserId.optional().openapi({ description: 'The user acted upon' }),
    action: z.enum(ADMIN_AUDIT_ACTIONS).optional(),
    from: dateTime.optional().openapi({ description: 'ISO 8601; inclusive' }),
    to: dateTime.optional().openapi({ description: 'ISO 8601; exclusive' }),
    ...paginationFields(20),
  })
  .refine(orderedRange, RANGE_ORDER_ISSUE)
  .openapi('AdminAuditQuery');

const ShortAdminUser = z.object({ id: z.number().int(), username: z.string() });

export const AdminAuditEntry = z
  .object({
    id: z.string().openapi({ description: 'The event id (source event), the record id (record) or chat-<id> (chat)' }),
    action: z.enum(ADMIN_AUDIT_ACTIONS),
    adminUserId: z.number().int(),
    admin: ShortAdminUser,
    targetUserId: z.number().int().nullable(),
    targetUser: ShortAdminUser.nullable(),
    details: z.looseObject({}),
    source: z.enum(['event', 'record', 'chat']),
    eventType: z.string().nullable(),
    position: z.string().nullable().openapi({ description: "The event's global position (commit/prepare); null when no event" }),
    createdAt: z.iso.datetime(),
  })
  .openapi('AdminAuditEntry');
