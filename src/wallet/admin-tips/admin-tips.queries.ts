import type pg from 'pg';
import { SCAN, type TotalPlan } from '../../read-models/list-counts/list-totals.js';
import { dec, direction, iso, listPage, type AnyRow, type Listed, type SortOrder } from '../../read-models/list-page.js';
import type { PageRequest } from '../../shared/page.js';
import { escapeLike, SqlParams } from '../../read-models/where.js';
import { UNTAGGED_TIP_TAG } from './admin-tips.schemas.js';

export type AdminTipsFilter = PageRequest &
  Readonly<{
    sortBy: 'AMOUNT' | 'CREATED_AT' | 'ID';
    sortOrder: SortOrder;
    senderUserId?: number | undefined;
    recipientUserId?: number | undefined;
    senderOrRecipientUserId?: number | undefined;
    search?: string | undefined;
  }>;

const tipsTotal = (q: AdminTipsFilter): TotalPlan => {
  if (q.search || q.senderOrRecipientUserId !== undefined || (q.senderUserId !== undefined && q.recipientUserId !== undefined)) return SCAN;
  const key = q.recipientUserId !== undefined ? `r:${q.recipientUserId}` : q.senderUserId !== undefined ? `x:${q.senderUserId}` : '';
  return { kind: 'counter', counts: 'admin_tips_counts', keys: [key] };
};

/** GET /admin-tips: tips and deductions with their sender and recipient names. */
export const listAdminTips = (pool: pg.Pool, q: AdminTipsFilter): Promise<Listed<unknown>> => {
  const p = new SqlParams();
  const conditions: string[] = [];
  if (q.senderUserId !== undefined) conditions.push(`t.sender_user_id = ${p.add(q.senderUserId)}`);
  if (q.recipientUserId !== undefined) conditions.push(`t.recipient_user_id = ${p.add(q.recipientUserId)}`);
  if (q.senderOrRecipientUserId !== undefined) {
    const id = p.add(q.senderOrRecipientUserId);
    conditions.push(`(t.sender_user_id = ${id} OR t.recipient_user_id = ${id})`);
  }
  if (q.search) {
    const like = p.add(`%${escapeLike(q.search)}%`);
    conditions.push(`(t.notes ILIKE ${like} ESCAPE '\\' OR s.username ILIKE ${like} ESCAPE '\\' OR r.username ILIKE ${like} ESCAPE '\\')`);
  }
  const sort = { AMOUNT: 't.amount', CREATED_AT: 't.created_at', ID: 't.id' }[q.sortBy];
  const dir = direction(q.sortOrder);
  return listPage<AnyRow, unknown>(
    pool,
    {
      select: `t.id, t.type, t.currency_id, ${dec('t.amount')} AS amount, t.tag, t.notes, t.created_at,
        t.sender_user_id, s.username AS sender_username, t.recipient_user_id, r.username AS recipient_username`,
      from: 'admin_tips t LEFT JOIN users s ON s.id = t.sender_user_id LEFT JOIN users r ON r.id = t.recipient_user_id',
      key: 't.id',
      conditions,
      orderBy: `${sort} ${dir}, t.id ${dir}`,
    },
    p,
    q,
    (r) => ({
      id: r.id,
      type: r.type,
      currencyId: r.currency_id,
      amount: r.amount,
      tag: r.tag ?? UNTAGGED_TIP_TAG,
      notes: r.notes,
      createdAt: iso(r.created_at),
      sender: { id: Number(r.sender_user_id), username: r.sender_username ?? '' },
      recipient: { id: Number(r.recipient_user_id), username: r.recipient_username ?? '' },
    }),
    tipsTotal(q),
  );
};
