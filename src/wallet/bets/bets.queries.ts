import type pg from 'pg';
import { dayRangePlan, only, SCAN, type TotalPlan } from '../../read-models/list-counts/list-totals.js';
import {
  dec,
  direction,
  iso,
  listPage,
  shortUser,
  shortUserColumns,
  type AnyRow,
  type Listed,
  type SortOrder,
} from '../../read-models/list-page.js';
import type { PageRequest } from '../../shared/page.js';
import { compileWhere, SqlParams, type DateFilter, type FieldMap } from '../../read-models/where.js';

export type BetsFilter = PageRequest &
  Readonly<{
    sortBy: keyof typeof BET_SORT;
    sortOrder: SortOrder;
    /** Always a status (the schema defaults it to SETTLED); the other fields as the spec's filter objects. */
    where: Readonly<{ status: string; userId?: number | undefined; createdAt?: DateFilter | undefined }>;
  }>;

const BET_FIELDS: FieldMap = {
  gameId: { kind: 'equals', column: 'b.game_id', cast: 'integer' },
  status: { kind: 'equals', column: 'b.status', cast: 'text' },
  userId: { kind: 'equals', column: 'b.user_id', cast: 'bigint' },
  currencyId: { kind: 'equals', column: 'b.currency_id', cast: 'text' },
  multiplier: { kind: 'number', column: 'b.multiplier' },
  usdAmount: { kind: 'decimal', column: 'b.usd_amount' },
  usdPayout: { kind: 'decimal', column: 'b.usd_payout' },
  amount: { kind: 'decimal', column: 'b.amount' },
  payout: { kind: 'decimal', column: 'b.payout' },
  createdAt: { kind: 'date', column: 'b.created_at' },
  // Bets carry the provider's name only: provider.slug filters it; provider ids are refused by the schema.
  gameIdentity: {
    kind: 'nested',
    fields: {
      slug: { kind: 'string', column: 'b.game_slug' },
      provider: { kind: 'nested', fields: { slug: { kind: 'string', column: 'b.game_provider' } } },
    },
  },
};
/**
 * A bet that is not SETTLED has no multiplier in the table (payout / amount is decided at settlement), and its payout is 0:
 * the answer shows 0, the multiplier of a zero payout, and a filter on the multiplier reads the same 0 (docs/decisions.md).
 */
const UNSETTLED_FIELDS: FieldMap = { ...BET_FIELDS, multiplier: { kind: 'number', column: 'COALESCE(b.multiplier, 0)' } };
export const UNSETTLED_MULTIPLIER = 0;

/** With no NULLS clause one index serves both directions: only the multiplier can be NULL, and never beside a non-NULL one. */
const BET_SORT = {
  CREATED_AT: 'b.created_at',
  MULTIPLIER: 'b.multiplier',
  USD_AMOUNT: 'b.usd_amount',
  USD_PAYOUT: 'b.usd_payout',
} as const;

const DECIMALS = ['amount', 'usd_amount', 'payout', 'usd_payout', 'multiplier'];

/** Counted by status alone, with a user, or with a createdAt range. */
const betsTotal = (w: BetsFilter['where']): TotalPlan => {
  if (only(w, ['status'])) return { kind: 'counter', counts: 'bets_counts', keys: [`s:${w.status}`] };
  if (only(w, ['status', 'userId'])) return { kind: 'counter', counts: 'bets_counts', keys: [`u:${w.userId}|s:${w.status}`] };
  if (only(w, ['status', 'createdAt']) && w.createdAt)
    return dayRangePlan('bets_counts', `s:${w.status}|d:`, 'b.created_at', w.createdAt) ?? SCAN;
  return SCAN;
};

const betRecord = (r: AnyRow) => ({
  id: r.id,
  userId: Number(r.user_id),
  roundId: r.round_id,
  gameId: r.game_id,
  currencyId: r.currency_id,
  amount: r.amount,
  payout: r.payout,
  usdAmount: r.usd_amount,
  usdPayout: r.usd_payout,
  status: r.status,
  multiplier: r.multiplier === null ? UNSETTLED_MULTIPLIER : Number(r.multiplier),
  errorDetails: r.error_details,
  // No GGR commission is computed on this platform yet.
  commissionGgrUsdAmount: '0',
  commissionGgrPercent: '0',
  gameIdentity: { name: r.game_name, slug: r.game_slug, type: r.game_type, provider: { name: r.game_provider }, images: null },
  user: shortUser(r, 'u'),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  settledAt: iso(r.settled_at),
});

/** GET and POST /bets. */
export const listBets = (pool: pg.Pool, q: BetsFilter): Promise<Listed<unknown>> => {
  const p = new SqlParams();
  const dir = direction(q.sortOrder);
  return listPage<AnyRow, unknown>(
    pool,
    {
      select: `b.*, ${DECIMALS.map((c) => `${dec(`b.${c}`)} AS ${c}`).join(', ')}, ${shortUserColumns('u', 'u')}`,
      from: 'bets b LEFT JOIN users u ON u.id = b.user_id',
      key: 'b.id',
      conditions: compileWhere(q.where.status === 'SETTLED' ? BET_FIELDS : UNSETTLED_FIELDS, q.where, p),
      orderBy: `${BET_SORT[q.sortBy]} ${dir}, b.id ${dir}`,
    },
    p,
    q,
    betRecord,
    betsTotal(q.where),
  );
};
