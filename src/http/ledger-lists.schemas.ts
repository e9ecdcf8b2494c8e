import { CURRENCY_IDS, REQUEST_CURRENCY_IDS } from '../domain/money/currency.js';
import { ACCOUNTING_TYPES } from '../domain/wallet/wallet.transaction-types.js';
import { STATS_RANGE_MAX_PERIODS, STATS_UNIT_MS } from '../wallet/deposits/transaction-stats.queries.js';
import { DateFilter, looseUserId } from './filters.js';
import { orderedRange, RANGE_ORDER_ISSUE } from './admin-audit.schemas.js';
import { paginationFields } from './pagination.js';
import { storableDateTime, z } from './validate.js';

const SortOrder = z.enum(['asc', 'desc']);

export const TransactionsBody = z
  .object({
    sortOrder: SortOrder.default('desc'),
    where: z
      .strictObject({
        userId: looseUserId.optional(),
        currencyId: z.enum(CURRENCY_IDS).optional(),
        type: z.enum(ACCOUNTING_TYPES).optional(),
        createdAt: DateFilter.optional().openapi({
          description: "On recording time: when the ledger recorded the movement (the answer's createdAt, its order)",
        }),
        effectiveAt: DateFilter.optional().openapi({
          description: 'On business time: when the movement took effect (a bet placed at the game server, a deposit confirmed)',
        }),
      })
      .prefault({}),
    ...paginationFields(20),
  })
  .openapi('TransactionsQueryBody');

const unreadable = (q: { from?: string | undefined; to?: string | undefined }): boolean =>
  [q.from, q.to].some((s) => s !== undefined && Number.isNaN(Date.parse(s)));
const rangeSpan = (from: string, to: string): number => Date.parse(to) - Date.parse(from);

export const StatsTransactionsQuery = z
  .object({
    transactionType: z.enum(['DEPOSIT', 'WITHDRAW']),
    dataRange: z.enum(['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY']).default('DAILY'),
    sortBy: z.literal('amount').default('amount'),
    sortOrder: SortOrder.default('desc'),
    from: storableDateTime.optional().openapi({
      description: 'With `to`: every period from the one holding `from`, empty ones included (amount 0, count 0)',
    }),
    to: storableDateTime.optional().openapi({ description: 'With `from`: the periods that start before `to` (exclusive)' }),
    ...paginationFields(30),
  })
  .refine((q) => (q.from === undefined) === (q.to === undefined), { message: 'from and to go together', path: ['to'] })
  // An unreadable end is its own field's issue already: the range checks only compare two instants.
  .refine((q) => unreadable(q) || orderedRange(q), RANGE_ORDER_ISSUE)
  .refine(
    (q) =>
      unreadable(q) ||
      q.from === undefined ||
      q.to === undefined ||
      rangeSpan(q.from, q.to) <= STATS_RANGE_MAX_PERIODS * STATS_UNIT_MS[q.dataRange],
    {
      message: `a range holds at most ${STATS_RANGE_MAX_PERIODS} periods`,
      path: ['to'],
    },
  )
  .openapi('StatsTransactionsQuery');

export const FullStatsParams = z.object({
  id: z
    .string()
    .regex(/^\d{1,15}$/, 'Expected a user id (digits)')
    .transform(Number),
});

export const RakebackBody = z
  .object({
    where: z.object({ userId: looseUserId, currencyId: z.enum(REQUEST_CURRENCY_IDS).optional() }),
  })
  .openapi('RakebackFindManyBody');
