import { CURRENCY_IDS, REQUEST_CURRENCY_IDS } from '../domain/money/currency.js';
import { ACCOUNTING_TYPES } from '../domain/wallet/wallet.transaction-types.js';
import { DateFilter, looseUserId } from './filters.js';
import { paginationFields } from './pagination.js';
import { z } from './validate.js';

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

export const StatsTransactionsQuery = z
  .object({
    transactionType: z.enum(['DEPOSIT', 'WITHDRAW']),
    dataRange: z.enum(['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY']).default('DAILY'),
    sortBy: z.literal('amount').default('amount'),
    sortOrder: SortOrder.default('desc'),
    ...paginationFields(30),
  })
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
