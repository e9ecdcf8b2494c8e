import type pg from 'pg';
import { SCAN, statusTotal } from '../list-counts/list-totals.js';
import { dec, direction, iso, listPage, shortUser, shortUserColumns, type AnyRow, type Listed, type SortOrder } from '../list-page.js';
import type { PageRequest } from '../../shared/page.js';
import { SqlParams } from '../where.js';

export type WithdrawalsFilter = PageRequest &
  Readonly<{
    sortBy: 'CREATED_AT' | 'USD_AMOUNT';
    sortOrder: SortOrder;
    status?: string | undefined;
    userId?: number | undefined;
    username?: string | undefined;
  }>;

/** GET /withdraw: withdrawals with the user and the confirming admin. */
export const listWithdrawals = (pool: pg.Pool, q: WithdrawalsFilter): Promise<Listed<unknown>> => {
  const p = new SqlParams();
  const conditions: string[] = [];
  if (q.status) conditions.push(`w.status = ${p.add(q.status)}`);
  if (q.userId !== undefined) conditions.push(`w.user_id = ${p.add(q.userId)}`);
  if (q.username) conditions.push(`lower(u.username) = lower(${p.add(q.username)})`);
  const dir = direction(q.sortOrder);
  return listPage<AnyRow, unknown>(
    pool,
    {
      select:
        `w.*, ${dec('w.amount')} AS amount, ${dec('w.usd_amount')} AS usd_amount, ` +
        `${shortUserColumns('u', 'u')}, ${shortUserColumns('c', 'c')}`,
      from: 'withdrawals w LEFT JOIN users u ON u.id = w.user_id LEFT JOIN users c ON c.id = w.confirmed_by_user_id',
      conditions,
      orderBy: `${q.sortBy === 'USD_AMOUNT' ? 'w.usd_amount' : 'w.created_at'} ${dir}, w.id ${dir}`,
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
