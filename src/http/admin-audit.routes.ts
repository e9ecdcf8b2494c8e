import { Router } from 'express';
import { guardedRoutes } from './access.js';
import { AdminAuditEntry, AdminAuditQuery } from './admin-audit.schemas.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { Paginated } from './openapi.schemas.js';
import { parseQuery } from './validate.js';
import { listAdminAudit } from '../read-models/admin-audit/admin-audit.queries.js';

/** The admin audit log: GET /admin-audit. */
export const adminAuditRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);

  route(
    'get',
    '/admin-audit',
    { kind: 'perm', permission: 'admin-users.view-admin-audit' },
    {
      summary: 'The admin audit log',
      addition: true,
      description:
        'Every admin action (tips, balance changes, withdrawal decisions, bans, roles, permissions, profile edits, limits, ' +
        'API keys, configuration, FAQ, leaderboard schedules, chat moderation), newest first; filter by acting admin, target user, ' +
        'action and time ([from, to)).',
      request: { query: AdminAuditQuery },
      responses: {
        200: { description: 'Paginated audit entries', schema: Paginated('PaginatedAdminAudit', AdminAuditEntry) },
        400: { description: 'VALIDATION_FAILED: a bad filter' },
      },
    },
    async (req, res) => {
      res.json((await listAdminAudit(deps.pool, parseQuery(AdminAuditQuery, req))).page);
    },
  );

  return router;
};
