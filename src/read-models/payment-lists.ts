import { dec, type AnyRow, type SortOrder } from './list-page.js';
import type { SqlParams } from './where.js';
import type { PageRequest } from '../shared/page.js';

/** What the deposit and withdrawal lists share: the status and user filters (kept counts answer both) and their first fields. */
export type PaymentsFilter = PageRequest & Readonly<{ sortOrder: SortOrder; status?: string | undefined; userId?: number | undefined }>;

export const paymentConditions = (alias: string, q: PaymentsFilter, p: SqlParams): string[] => [
  ...(q.status ? [`${alias}.status = ${p.add(q.status)}`] : []),
  ...(q.userId !== undefined ? [`${alias}.user_id = ${p.add(q.userId)}`] : []),
];

/** The row, its amounts as canonical decimals. */
export const paymentColumns = (alias: string): string =>
  `${alias}.*, ${dec(`${alias}.amount`)} AS amount, ${dec(`${alias}.usd_amount`)} AS usd_amount`;

export const paymentFields = (r: AnyRow) => ({
  id: r.id,
  userId: Number(r.user_id),
  amount: r.amount,
  currencyId: r.currency_id,
  status: r.status,
  usdAmount: r.usd_amount,
  networkId: r.network_id,
  providerId: r.provider_id,
});
