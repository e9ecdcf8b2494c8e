import type pg from 'pg';
import { iso, listPage, type Listed } from '../list-page.js';
import type { PageRequest } from '../../shared/page.js';
import { SqlParams } from '../where.js';

export type AdminAuditFilter = PageRequest &
  Readonly<{
    adminId?: number | undefined;
    userId?: number | undefined;
    action?: string | undefined;
    from?: string | undefined;
    to?: string | undefined;
  }>;

type AuditRow = {
  id: string;
  admin_user_id: string;
  admin_username: string | null;
  action: string;
  target_user_id: string | null;
  target_username: string | null;
  details: Record<string, unknown>;
  source: 'event' | 'record' | 'chat';
  event_type: string | null;
  position: string | null;
  created_at: Date;
};

/** Every admin action from its three records; PostgreSQL pushes the filters into each branch, where each has its index. */
const AUDIT_LOG = `(
  SELECT id, admin_user_id, action, target_user_id, details, created_at, event_type, position, position_commit, position_prepare,
    'event' AS source FROM admin_audit
  UNION ALL
  SELECT id, admin_user_id, action, target_user_id, details, created_at, NULL, NULL, NULL, NULL, 'record' FROM admin_audit_records
  UNION ALL
  SELECT 'chat-' || m.id, m.admin_user_id, CASE m.action WHEN 'delete_message' THEN 'chat.delete-message' ELSE 'chat.set-rate-limit' END,
    msg.user_id, m.args, m.created_at, NULL, NULL, NULL, NULL, 'chat'
  FROM chat_moderation m
  LEFT JOIN chat_messages msg ON msg.id = CASE WHEN m.action = 'delete_message' AND m.args->>'messageId' ~ '^[0-9]{1,18}$'
    THEN (m.args->>'messageId')::bigint END
) a LEFT JOIN users au ON au.id = a.admin_user_id LEFT JOIN users tu ON tu.id = a.target_user_id`;

const entry = (r: AuditRow) => ({
  id: r.id,
  action: r.action,
  adminUserId: Number(r.admin_user_id),
  admin: { id: Number(r.admin_user_id), username: r.admin_username ?? '' },
  targetUserId: r.target_user_id === null ? null : Number(r.target_user_id),
  targetUser: r.target_user_id === null ? null : { id: Number(r.target_user_id), username: r.target_username ?? '' },
  details: r.details,
  source: r.source,
  eventType: r.event_type,
  position: r.position,
  createdAt: iso(r.created_at),
});

export type AdminAuditEntry = ReturnType<typeof entry>;

/** GET /admin-audit: newest first, filtered by acting admin, target user, action and time ([from, to)). */
export const listAdminAudit = (pool: pg.Pool, q: AdminAuditFilter): Promise<Listed<AdminAuditEntry>> => {
  const p = new SqlParams();
  const conditions: string[] = [];
  if (q.adminId !== undefined) conditions.push(`a.admin_user_id = ${p.add(q.adminId)}`);
  if (q.userId !== undefined) conditions.push(`a.target_user_id = ${p.add(q.userId)}`);
  if (q.action !== undefined) conditions.push(`a.action = ${p.add(q.action)}`);
  if (q.from !== undefined) conditions.push(`a.created_at >= ${p.add(q.from)}::timestamptz`);
  if (q.to !== undefined) conditions.push(`a.created_at < ${p.add(q.to)}::timestamptz`);
  return listPage<AuditRow, AdminAuditEntry>(
    pool,
    {
      select: `a.id, a.admin_user_id, a.action, a.target_user_id, a.details, a.created_at, a.event_type, a.position, a.source,
        au.username AS admin_username, tu.username AS target_username`,
      // Events decided in the same millisecond keep the ledger's order (their global position).
      from: AUDIT_LOG,
      conditions,
      orderBy: 'a.created_at DESC, a.position_commit DESC NULLS LAST, a.position_prepare DESC NULLS LAST, a.id DESC',
    },
    p,
    q,
    entry,
  );
};
