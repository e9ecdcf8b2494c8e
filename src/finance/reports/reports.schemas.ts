import { z } from '../../http/validate.js';
import { GAMING_GROUPS } from './gaming.queries.js';
import { PAYMENT_GROUPS } from './payments.queries.js';

const Day = z.string().max(10).openapi({ description: 'A business day YYYY-MM-DD in the ledger time zone', example: '2026-10-01' });
const Period = z.string().max(10).openapi({
  description: 'A month YYYY-MM (a day when LEDGER_PERIOD=day) in the ledger time zone: what is booked in it, late items included',
  example: '2026-10',
});
const Format = z.enum(['json', 'csv']).default('json').openapi({ description: 'json (default), or csv: RFC 4180, the same rows' });

/** Flow reports take a period or a range of business days; `from` and `to` are inclusive. */
export const FlowQuery = z.object({ period: Period.optional(), from: Day.optional(), to: Day.optional(), format: Format });
export const PeriodQuery = z.object({ period: Period, format: Format });
export const GamingQuery = FlowQuery.extend({
  groupBy: z.enum(GAMING_GROUPS).default('day').openapi({ description: 'Rows per day (with NGR), game, provider, or currency' }),
});
export const PaymentsQuery = FlowQuery.extend({
  groupBy: z.enum(PAYMENT_GROUPS).default('day').openapi({ description: 'Rows per business day, or per provider over the scope' }),
});
export const StatementParams = z.object({ userId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });

const Cell = z.union([z.string(), z.number(), z.null()]);
export const ReportView = z
  .object({
    report: z.string(),
    scope: z.object({
      kind: z.enum(['period', 'range']),
      period: z.string().optional(),
      from: z.string().optional(),
      to: z.string().optional(),
      start: z.string().optional().openapi({ description: 'First instant covered (business time)' }),
      end: z.string().optional().openapi({ description: 'End of what is covered (business time, exclusive)' }),
      closed: z.boolean().optional(),
      timeZone: z.string(),
      axis: z.literal('business time'),
    }),
    source: z.enum(['sealed close', 'read model to date', 'read model']).openapi({
      description: "Where the figures come from: a closed period's sealed close, or the read models as of now",
    }),
    columns: z.array(z.string()),
    rows: z.array(z.record(z.string(), Cell)),
    totals: z.array(z.record(z.string(), Cell)).optional(),
    csv: z.object({
      rows: z.number().int(),
      bytes: z.number().int(),
      sha256: z.string().openapi({ description: 'SHA-256 of the CSV this request answers with format=csv' }),
      columns: z.array(z.string()),
      formulaGuard: z.string(),
    }),
  })
  .openapi('FinanceReport');
