import {
  DateFilter,
  DecimalFilter,
  IntFilter,
  jsonOrObject,
  looseInt,
  looseUserId,
  NumberFilter,
  StringFilter,
} from '../../http/filters.js';
import { ShortUser } from '../../http/openapi.schemas.js';
import { paginationFields } from '../../http/pagination.js';
import { z } from '../../http/validate.js';

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
  sortOrder: z.enum(['asc', 'desc']),
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

const decimal = z.string().openapi({ example: '12.5' });
const GameIdentity = z.object({
  name: z.string(),
  slug: z.string(),
  type: z.string(),
  provider: z.object({ name: z.string() }),
  images: z.object({ imageUrl: z.string() }).nullable(),
});

/** Spec "Bet" as the lists answer it; `multiplier` is a number for every bet (0 until one is SETTLED, docs/decisions.md). */
export const BetRecord = z
  .object({
    id: z.string(),
    userId: z.number().int(),
    roundId: z.string(),
    gameId: z.number().int(),
    currencyId: z.string(),
    amount: decimal,
    payout: decimal,
    usdAmount: decimal,
    usdPayout: decimal,
    status: z.enum(['CREATED', 'SETTLED', 'ERROR', 'ROLLBACK']),
    multiplier: z.number().openapi({ description: 'payout / amount once SETTLED; 0 before (the payout is 0 until then)' }),
    errorDetails: z.string().nullable(),
    commissionGgrUsdAmount: decimal,
    commissionGgrPercent: decimal,
    gameIdentity: GameIdentity,
    user: ShortUser.nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    settledAt: z.iso.datetime().nullable(),
  })
  .openapi('Bet');
