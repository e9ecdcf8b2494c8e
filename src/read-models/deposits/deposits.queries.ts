import type pg from 'pg';
import { statusTotal } from '../list-counts/list-totals.js';
import { dec, direction, iso, listPage, shortUser, shortUserColumns, type AnyRow, type Listed, type SortOrder } from '../list-page.js';
import type { PageRequest } from '../../shared/page.js';
import { SqlParams } from '../where.js';

export type DepositsFilter = PageRequest &
  Readonly<{
    sortBy: 'CREATED_AT' | 'USD_AMOUNT' | 'COMPLETED_AT' | 'CONFIRMED_AT';
    sortOrder: SortOrder;
    status?: string | undefined;
    userId?: number | undefined;
  }>;

/** GET /deposit: deposits with their user. */
export const listDeposits = (pool: pg.Pool, q: DepositsFilter): Promise<Listed<unknown>> => {
  const p = new SqlParams();
  const conditions: string[] = [];
  if (q.status) conditions.push(`d.status = ${p.add(q.status)}`);
  if (q.userId !== undefined) conditions.push(`d.user_id = ${p.add(q.userId)}`);
  const sort = {
    CREATED_AT: 'd.created_at',
    USD_AMOUNT: 'd.usd_amount',
    COMPLETED_AT: 'd.completed_at',
    CONFIRMED_AT: 'd.confirmed_at',
  }[q.sortBy];
  const dir = direction(q.sortOrder);
  return listPage<AnyRow, unknown>(
    pool,
    {
      select: `d.*, ${dec('d.amount')} AS amount, ${dec('d.usd_amount')} AS usd_amount, ${shortUserColumns('u', 'u')}`,
      from: 'deposits d LEFT JOIN users u ON u.id = d.user_id',
      conditions,
      // Deposits not yet confirmed or completed have no such time: they come last in both directions.
      orderBy: `${sort} ${dir} NULLS LAST, d.id ${dir}`,
    },
    p,
    q,
    (r) => ({
      id: r.id,
      userId: Number(r.user_id),
      amount: r.amount,
      currencyId: r.currency_id,
      status: r.status,
      usdAmount: r.usd_amount,
      networkId: r.network_id,
      providerId: r.provider_id,
      externalId: r.external_id,
      txHash: r.tx_hash,
      payAddress: r.pay_address,
      payMemo: r.pay_memo,
      transactionId: r.transaction_id,
      affiliateAmount: r.affiliate_amount,
      depositBonus: r.deposit_bonus,
      affiliateCodeId: r.affiliate_code_id,
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
      confirmedAt: iso(r.confirmed_at),
      completedAt: iso(r.completed_at),
      user: shortUser(r, 'u'),
    }),
    statusTotal('deposits_counts', q),
  );
};
