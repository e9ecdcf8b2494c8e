import type pg from 'pg';
import { scopeFilter, type ReportScope } from './reports.scope.js';
import type { ReportTable } from './report.table.js';

export const PAYMENT_GROUPS = ['day', 'provider'] as const;
export type PaymentGroup = (typeof PAYMENT_GROUPS)[number];

/**
 * Payments: how many deposits and withdrawals reached each state, and for how much, per provider, network, currency
 * (and business day). A state counts on the day it was reached; amounts are the requested ones (a completed deposit's
 * credited amount). Providers report no fees to the ledger: fees appear in a reconciliation of their statement.
 */
export const paymentsReport = async (db: Pick<pg.Pool, 'query'>, scope: ReportScope, group: PaymentGroup): Promise<ReportTable> => {
  const f = scopeFilter(scope, 1);
  const day = group === 'day' ? `to_char(day, 'YYYY-MM-DD')` : 'NULL';
  const { rows } = await db.query<Record<string, string | null>>(
    `SELECT ${day} AS day, direction, provider, network, currency_id, state, sum(count)::text AS count,
       trim_scale(sum(amount))::text AS amount, trim_scale(sum(usd_amount))::text AS usd_amount
     FROM finance_payments_daily WHERE ${f.sql}
     GROUP BY 1, direction, provider, network, currency_id, state
     ORDER BY 1, direction, provider, network, currency_id, state`,
    f.values,
  );
  return {
    columns: [
      ...(group === 'day' ? [{ name: 'day', text: true as const }] : []),
      ...['direction', 'provider', 'network', 'currencyId', 'state'].map((name) => ({ name, text: true as const })),
      { name: 'count' },
      { name: 'amount' },
      { name: 'usdAmount' },
    ],
    rows: rows.map((r) => ({
      ...(group === 'day' ? { day: r.day } : {}),
      direction: r.direction,
      provider: r.provider,
      network: r.network,
      currencyId: r.currency_id,
      state: r.state,
      count: Number(r.count),
      amount: r.amount,
      usdAmount: r.usd_amount,
    })),
  };
};

/**
 * Admin adjustments and promotional credits, by kind, tag and admin: tips, deductions, balance sets, leaderboard prizes
 * and affiliate commissions. Amounts are signed from the players' point of view (a deduction is negative).
 */
export const adjustmentsReport = async (db: Pick<pg.Pool, 'query'>, scope: ReportScope): Promise<ReportTable> => {
  const f = scopeFilter(scope, 1);
  const { rows } = await db.query<Record<string, string | null>>(
    `SELECT a.kind, a.tag, a.admin_user_id::text AS admin_user_id, u.username, a.currency_id, a.count::text AS count,
       trim_scale(a.amount)::text AS amount, trim_scale(a.usd_amount)::text AS usd_amount
     FROM (
       SELECT kind, tag, admin_user_id, currency_id, sum(count) AS count, sum(amount) AS amount, sum(usd_amount) AS usd_amount
       FROM finance_adjustments_daily WHERE ${f.sql} GROUP BY kind, tag, admin_user_id, currency_id
     ) a LEFT JOIN users u ON u.id = a.admin_user_id
     ORDER BY a.kind, a.tag, a.admin_user_id, a.currency_id`,
    f.values,
  );
  return {
    columns: [
      ...['kind', 'tag'].map((name) => ({ name, text: true as const })),
      { name: 'adminUserId' },
      ...['adminUsername', 'currencyId'].map((name) => ({ name, text: true as const })),
      { name: 'count' },
      { name: 'amount' },
      { name: 'usdAmount' },
    ],
    rows: rows.map((r) => ({
      kind: r.kind,
      tag: r.tag === '' ? null : r.tag,
      adminUserId: r.admin_user_id === '0' ? null : Number(r.admin_user_id),
      adminUsername: r.admin_user_id === '0' ? null : r.username,
      currencyId: r.currency_id,
      count: Number(r.count),
      amount: r.amount,
      usdAmount: r.usd_amount,
    })),
  };
};
