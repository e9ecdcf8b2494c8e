import type pg from 'pg';
import { dayRangePlan, only, SCAN, type TotalPlan } from '../list-counts/list-totals.js';
import { dec, direction, iso, listPage, type AnyRow, type Listed, type SortOrder } from '../list-page.js';
import type { PageRequest } from '../../shared/page.js';
import { compileWhere, SqlParams, type DateFilter, type FieldMap } from '../where.js';

export type TransactionsFilter = PageRequest &
  Readonly<{
    sortOrder: SortOrder;
    where: Readonly<{
      userId?: number | undefined;
      currencyId?: string | undefined;
      type?: string | undefined;
      /** Recording time: the list's order. */
      createdAt?: DateFilter | undefined;
      /** Business time (effective_at). */
      effectiveAt?: DateFilter | undefined;
    }>;
  }>;

const TRANSACTION_FIELDS: FieldMap = {
  userId: { kind: 'equals', column: 't.user_id', cast: 'bigint' },
  currencyId: { kind: 'equals', column: 't.currency_id', cast: 'text' },
  type: { kind: 'equals', column: 't.type', cast: 'text' },
  createdAt: { kind: 'date', column: 't.created_at' },
  effectiveAt: { kind: 'date', column: 't.effective_at' },
};

const transactionsTotal = (w: TransactionsFilter['where']): TotalPlan => {
  if (only(w, [])) return { kind: 'counter', counts: 'transactions_counts', keys: [''] };
  if (only(w, ['userId'])) return { kind: 'counter', counts: 'transactions_counts', keys: [`u:${w.userId}`] };
  if (only(w, ['createdAt']) && w.createdAt) return dayRangePlan('transactions_counts', 'd:', 't.created_at', w.createdAt) ?? SCAN;
  return SCAN;
};

/**
 * POST /accounting/transactions: the accounting log in recording order, filtered on recording or business time. The player's
 * and the admin's usernames come from the users read model, joined by id for the page's rows only (the keys are found first).
 */
export const listTransactions = (pool: pg.Pool, q: TransactionsFilter): Promise<Listed<unknown>> => {
  const p = new SqlParams();
  const dir = direction(q.sortOrder);
  return listPage<AnyRow, unknown>(
    pool,
    {
      select: `t.id, t.user_id, t.currency_id, t.type, t.original_id, t.admin_user_id, t.created_at, t.updated_at,
        ${dec('t.amount')} AS amount, ${dec('t.before_balance')} AS before_balance, ${dec('t.after_balance')} AS after_balance,
        u.username, a.username AS admin_username`,
      from: 'transactions t LEFT JOIN users u ON u.id = t.user_id LEFT JOIN users a ON a.id = t.admin_user_id',
      key: 't.id',
      conditions: compileWhere(TRANSACTION_FIELDS, q.where, p),
      orderBy: `t.created_at ${dir}, t.position_commit ${dir}, t.position_prepare ${dir}`,
    },
    p,
    q,
    (r) => ({
      id: r.id,
      userId: Number(r.user_id),
      username: r.username ?? null,
      currencyId: r.currency_id,
      type: r.type,
      amount: r.amount,
      beforeBalance: r.before_balance,
      afterBalance: r.after_balance,
      originalId: r.original_id,
      adminUserId: r.admin_user_id === null ? null : Number(r.admin_user_id),
      adminUsername: r.admin_username ?? null,
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
    }),
    transactionsTotal(q.where),
  );
};
