import type pg from 'pg';
import { statusTotal } from '../../read-models/list-counts/list-totals.js';
import { direction, iso, listPage, shortUser, shortUserColumns, type AnyRow, type Listed } from '../../read-models/list-page.js';
import { paymentColumns, paymentConditions, paymentFields, type PaymentsFilter } from '../../read-models/payment-lists.js';
import { SqlParams } from '../../read-models/where.js';

export type DepositsFilter = PaymentsFilter & Readonly<{ sortBy: 'CREATED_AT' | 'USD_AMOUNT' | 'COMPLETED_AT' | 'CONFIRMED_AT' }>;

/** GET /deposit: deposits with their user. */
export const listDeposits = (pool: pg.Pool, q: DepositsFilter): Promise<Listed<unknown>> => {
  const p = new SqlParams();
  const conditions = paymentConditions('d', q, p);
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
      select: `${paymentColumns('d')}, ${shortUserColumns('u', 'u')}`,
      from: 'deposits d LEFT JOIN users u ON u.id = d.user_id',
      key: 'd.id',
      conditions,
      // Deposits not yet confirmed or completed have no such time: they come last in both directions.
      orderBy: `${sort} ${dir} NULLS LAST, d.id ${dir}`,
    },
    p,
    q,
    (r) => ({
      ...paymentFields(r),
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
      hold: r.hold ?? null,
      user: shortUser(r, 'u'),
    }),
    statusTotal('deposits_counts', q),
  );
};
