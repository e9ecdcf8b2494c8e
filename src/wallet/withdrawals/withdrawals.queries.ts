import type pg from 'pg';
import { SCAN, statusTotal } from '../../read-models/list-counts/list-totals.js';
import { direction, iso, listPage, shortUser, shortUserColumns, type AnyRow, type Listed } from '../../read-models/list-page.js';
import { paymentColumns, paymentConditions, paymentFields, type PaymentsFilter } from '../../read-models/payment-lists.js';
import { SqlParams } from '../../read-models/where.js';

export type WithdrawalsFilter = PaymentsFilter & Readonly<{ sortBy: 'CREATED_AT' | 'USD_AMOUNT'; username?: string | undefined }>;

/** GET /withdraw: withdrawals with the user and the confirming admin. */
export const listWithdrawals = (pool: pg.Pool, q: WithdrawalsFilter): Promise<Listed<unknown>> => {
  const p = new SqlParams();
  const conditions = paymentConditions('w', q, p);
  if (q.username) conditions.push(`lower(u.username) = lower(${p.add(q.username)})`);
  const dir = direction(q.sortOrder);
  return listPage<AnyRow, unknown>(
    pool,
    {
      select: `${paymentColumns('w')}, ${shortUserColumns('u', 'u')}, ${shortUserColumns('c', 'c')}`,
      from: 'withdrawals w LEFT JOIN users u ON u.id = w.user_id LEFT JOIN users c ON c.id = w.confirmed_by_user_id',
      key: 'w.id',
      conditions,
      orderBy: `${q.sortBy === 'USD_AMOUNT' ? 'w.usd_amount' : 'w.created_at'} ${dir}, w.id ${dir}`,
    },
    p,
    q,
    (r) => ({
      ...paymentFields(r),
      recipientAddress: r.recipient_address,
      recipientMemo: r.recipient_memo,
      confirmedAt: iso(r.confirmed_at),
      confirmations: r.confirmations,
      rejectReason: r.reject_reason,
      transactionId: r.transaction_id,
      txHash: r.tx_hash,
      failedReason: r.failed_reason,
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
      user: shortUser(r, 'u'),
      confirmedByUser: shortUser(r, 'c'),
      confirmedByUserId: r.confirmed_by_user_id === null ? null : Number(r.confirmed_by_user_id),
    }),
    q.username ? SCAN : statusTotal('withdrawals_counts', q),
  );
};
