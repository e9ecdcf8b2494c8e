import { CURRENCY_IDS, REQUEST_CURRENCY_IDS } from '../domain/money/currency.js';
import { ACCOUNTING_TYPES } from '../domain/wallet/wallet.transaction-types.js';
import { DateFilter, DecimalFilter, IntFilter, jsonOrObject, looseInt, looseUserId, NumberFilter, StringFilter } from './filters.js';
import { paginationFields } from './pagination.js';
import { z } from './validate.js';

const SortOrder = z.enum(['asc', 'desc']);

export const DepositsQuery = z
  .object({
    sortBy: z.enum(['CREATED_AT', 'USD_AMOUNT', 'COMPLETED_AT', 'CONFIRMED_AT']),
    sortOrder: SortOrder,
    status: z.enum(['PENDING', 'CONFIRMED', 'COMPLETE', 'FAILED']).optional(),
    userId: looseUserId.optional(),
    ...paginationFields(20),
  })
  .openapi('DepositsQuery');

export const GameProviderFilter = z.strictObject({ id: IntFilter.optional(), slug: StringFilter.optional() });

/** Bets record the provider's name only (no provider id): a filter on a provider id cannot be answered and is refused. */
export const GameIdentityFilter = z
  .strictObject({
    providerId: IntFilter.optional(),
    slug: StringFilter.optional(),
    provider: GameProviderFilter.optional(),
  })
  .superRefine((f, ctx) => {
    const message = 'Bets record no provider id; filter by provider.slug (the provider name) instead';
    if (f.providerId !== undefined) ctx.addIssue({ code: 'custom', path: ['providerId'], message });
    if (f.provider?.id !== undefined) ctx.addIssue({ code: 'custom', path: ['provider', 'id'], message });
  });

export const BetsFilter = z
  .strictObject({
    gameId: looseInt.optional(),
    status: z.enum(['CREATED', 'SETTLED', 'ERROR', 'ROLLBACK']).default('SETTLED'),
    userId: looseUserId.optional(),
    currencyId: z.literal('DBC').optional(),
    multiplier: NumberFilter.optional(),
    usdAmount: DecimalFilter.optional(),
    usdPayout: DecimalFilter.optional(),
    amount: DecimalFilter.optional(),
    payout: DecimalFilter.optional(),
    createdAt: DateFilter.optional(),
    gameIdentity: GameIdentityFilter.optional(),
  })
  .openapi('BetsFilter');

const betsFields = {
  sortBy: z.enum(['CREATED_AT', 'MULTIPLIER', 'USD_AMOUNT', 'USD_PAYOUT']),
  sortOrder: SortOrder,
  ...paginationFields(20),
};
export const BetsQuery = z.object({ ...betsFields, where: jsonOrObject(BetsFilter).prefault({}) }).openapi('BetsQuery');
/** Spec: the body must carry page and take (the query form defaults them). */
export const BetsBody = z
  .object({
    ...betsFields,
    page: betsFields.page.unwrap(),
    take: betsFields.take.unwrap(),
    where: BetsFilter.prefault({}),
  })
  .openapi('BetsBody');

export const TransactionsBody = z
  .object({
    sortOrder: SortOrder.default('desc'),
    where: z
      .strictObject({
        userId: looseUserId.optional(),
        currencyId: z.enum(CURRENCY_IDS).optional(),
        type: z.enum(ACCOUNTING_TYPES).optional(),
        createdAt: DateFilter.optional(),
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
