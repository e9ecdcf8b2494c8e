import { storableDateTime, z } from '../../http/validate.js';
import { ITEM_KINDS } from './reconcile.js';

const Amount = z.string().openapi({ description: 'An exact decimal', example: '1250.5' });
const Who = z.object({ id: z.number().int(), username: z.string() });

export const UploadQuery = z.object({
  provider: z.string().min(1).max(64).openapi({ description: "The provider's id in the ledger (deposits' and withdrawals' providerId)" }),
  from: storableDateTime.openapi({ description: 'Start of the range, business time, inclusive (ISO 8601 with zone)' }),
  to: storableDateTime.openapi({ description: 'End of the range, business time, exclusive (ISO 8601 with zone)' }),
  fileName: z.string().max(200).optional().openapi({ description: 'The uploaded file\u2019s name, kept with the run' }),
});

export const RunParams = z.object({ id: z.string().min(1).max(64) });
export const ItemParams = z.object({ id: z.string().min(1).max(64), itemNo: z.coerce.number().int().min(1).max(2_000_000_000) });

export const RunsQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  provider: z.string().min(1).max(64).optional(),
});

export const ItemsQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  kind: z
    .enum([...ITEM_KINDS, 'breaks'])
    .optional()
    .openapi({ description: '`breaks`: every kind but `matched`' }),
  resolved: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
});

export const ResolveBody = z.object({
  note: z.string().trim().min(1).max(2000).openapi({ description: 'Why the break needs no change to the ledger, or what was done' }),
});

const Total = z.object({
  currencyId: z.string(),
  direction: z.enum(['deposit', 'withdrawal']),
  kind: z.enum(ITEM_KINDS),
  items: z.number().int(),
  statementAmount: Amount,
  ledgerAmount: Amount,
});

export const RunView = z
  .object({
    id: z.string(),
    providerId: z.string(),
    from: z.string(),
    to: z.string(),
    fileName: z.string().nullable(),
    sha256: z.string().openapi({ description: "SHA-256 of the statement's bytes as uploaded" }),
    lines: z.number().int(),
    tolerances: z.array(z.object({ currencyId: z.string(), tolerance: Amount })),
    totals: z.array(Total).openapi({ description: 'Per currency, direction and kind: the items and each side\u2019s amount' }),
    breaks: z.number().int(),
    unresolvedBreaks: z.number().int(),
    uploadedBy: Who,
    uploadedAt: z.string(),
  })
  .openapi('ReconciliationRun');

export const RunsView = z
  .object({ total: z.number().int(), page: z.number().int(), limit: z.number().int(), runs: z.array(RunView) })
  .openapi('ReconciliationRuns');

export const ItemView = z
  .object({
    itemNo: z.number().int(),
    kind: z.enum(ITEM_KINDS),
    direction: z.string(),
    matchedBy: z.string().nullable(),
    statement: z
      .object({
        line: z.number().int(),
        reference: z.string().nullable(),
        externalId: z.string().nullable(),
        txHash: z.string().nullable(),
        currencyId: z.string().nullable(),
        amount: Amount.nullable(),
        status: z.string().nullable(),
        occurredAt: z.string().nullable(),
      })
      .nullable(),
    ledger: z
      .object({
        ids: z.array(z.string()),
        currencyId: z.string().nullable(),
        amount: Amount.nullable(),
        status: z.string().nullable(),
        effectiveAt: z.string().nullable(),
        txHash: z.string().nullable(),
      })
      .nullable(),
    difference: Amount.nullable().openapi({ description: 'Statement amount minus the ledger amount' }),
    detail: z.string().nullable(),
    resolution: z.object({ note: z.string(), resolvedBy: Who, resolvedAt: z.string() }).nullable(),
  })
  .openapi('ReconciliationItem');

export const ItemsView = z
  .object({ total: z.number().int(), page: z.number().int(), limit: z.number().int(), items: z.array(ItemView) })
  .openapi('ReconciliationItems');
