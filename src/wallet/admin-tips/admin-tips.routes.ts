import type { Request } from 'express';
import { authOf } from '../../http/auth.adapter.js';
import type { BackOfficeDeps } from '../../http/back-office.deps.js';
import { Paginated, SuccessResponse } from '../../http/openapi.schemas.js';
import { adminOperationKey, IdempotencyKeyHeaders } from '../../http/operation-key.js';
import { input, page, perm, read, type Route } from '../../http/read-route.js';
import { parseBody } from '../../http/validate.js';
import type { Ledger } from '../../commands/ledger.types.js';
import { orThrow } from '../../commands/errors.js';
import type { Permission } from '../../domain/user/permissions.js';
import { listAdminTips } from './admin-tips.queries.js';
import { AdminTipBody, AdminTipRecord, AdminTipsQuery } from './admin-tips.schemas.js';

/** GET /admin-tips: the admin-tips read model, once it has caught up with the caller's last write. */
export const adminTipsListRoute = read(
  'get',
  '/admin-tips',
  perm('admin-tips.view'),
  ['admin-tips', 'users'],
  input('query', AdminTipsQuery),
  listAdminTips,
  { summary: 'List admin tips', output: page('Paginated admin tips', Paginated('PaginatedAdminTips', AdminTipRecord)) },
);

/** POST /admin-tips and /admin-tips/deduct-balance: the same body and key, differing only in the use case. */
export const adminTipsRoutes = (route: Route, { ledger }: Pick<BackOfficeDeps, 'ledger'>): void => {
  const tipRoute = (path: string, permission: Permission, summary: string, done: string, command: Ledger['tip']) =>
    route(
      'post',
      path,
      { kind: 'perm', permission },
      {
        summary,
        request: { body: AdminTipBody, headers: IdempotencyKeyHeaders },
        responses: { 201: { description: done, schema: SuccessResponse } },
      },
      async (req: Request, res) => {
        const key = adminOperationKey(req);
        const body = parseBody(AdminTipBody, req);
        orThrow(await command({ ...body, adminUserId: authOf(req).userId, operationKey: key }));
        res.status(201).json({ success: true });
      },
    );
  tipRoute('/admin-tips', 'admin-tips.tip', 'Tip a user', 'Tipped', ledger.tip);
  tipRoute('/admin-tips/deduct-balance', 'admin-tips.deduct-balance', "Deduct from a user's balance", 'Deducted', ledger.deductBalance);
};
