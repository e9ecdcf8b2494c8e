import { EXPORT_FORMATS, EXPORT_KINDS } from '../audit/export.columns.js';
import { orderedRange, RANGE_ORDER_ISSUE } from './admin-audit.schemas.js';
import { storableDateTime, z } from './validate.js';

const dateTime = storableDateTime;

/** GET /accounting/export: which read model, which format, [from, to) on created_at (either end open). */
export const ExportQuery = z
  .object({
    kind: z.enum(EXPORT_KINDS),
    format: z.enum(EXPORT_FORMATS).default('csv'),
    from: dateTime.optional().openapi({ description: 'ISO 8601, on created_at; inclusive' }),
    to: dateTime.optional().openapi({ description: 'ISO 8601, on created_at; exclusive' }),
  })
  .refine(orderedRange, RANGE_ORDER_ISSUE)
  .openapi('ExportQuery');
