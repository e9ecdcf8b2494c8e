import { EXPORT_FORMATS, EXPORT_KINDS } from '../audit/export.columns.js';
import { orderedRange, RANGE_ORDER_ISSUE } from './admin-audit.schemas.js';
import { storableDateTime, z } from './validate.js';

const dateTime = storableDateTime;

/**
 * GET /accounting/export: which read model, which format, [from, to) on business time (effective_at) and
 * [knownFrom, knownTo) on recording time (created_at); any end open.
 */
export const ExportQuery = z
  .object({
    kind: z.enum(EXPORT_KINDS),
    format: z.enum(EXPORT_FORMATS).default('csv'),
    from: dateTime.optional().openapi({ description: 'ISO 8601, on business time (effectiveAt); inclusive' }),
    to: dateTime.optional().openapi({ description: 'ISO 8601, on business time (effectiveAt); exclusive' }),
    knownFrom: dateTime.optional().openapi({ description: 'ISO 8601, on recording time (createdAt); inclusive' }),
    knownTo: dateTime.optional().openapi({
      description: 'ISO 8601, on recording time (createdAt); exclusive: the rows as the ledger knew them at that time',
    }),
  })
  .refine(orderedRange, RANGE_ORDER_ISSUE)
  .refine((q) => orderedRange({ from: q.knownFrom, to: q.knownTo }), {
    message: 'knownTo must be later than knownFrom',
    path: ['knownTo'],
  })
  .openapi('ExportQuery');
