import { authOf } from '../../http/auth.adapter.js';
import { adminOperationRoute } from '../../http/admin-operation-route.js';
import type { BackOfficeDeps } from '../../http/back-office.deps.js';
import { Paginated, WithdrawalRecord as WithdrawalRecordSchema } from '../../http/openapi.schemas.js';
import { input, page, perm, read, type Route } from '../../http/read-route.js';
import { parseBody } from '../../http/validate.js';
import { withdrawalRecord, withdrawApprove, withdrawReject } from '../../commands/admin-operations/withdrawals.js';
import { orThrow } from '../../commands/errors.js';
import { listWithdrawals } from './withdrawals.queries.js';
import { WithdrawalIdBody, WithdrawalRejectBody, WithdrawalsQuery } from './withdrawals.schemas.js';

export const withdrawalsListRoute = read(
  'get',
  '/withdraw',
  perm('withdrawals.view'),
  ['withdrawals', 'users'],
  input('query', WithdrawalsQuery),
  listWithdrawals,
  {
    summary: 'List withdrawals',
    output: page('Paginated withdrawals', Paginated('PaginatedWithdrawals', WithdrawalRecordSchema)),
  },
);

/** The admin's decisions on a withdrawal: approve, reject, retry a failed payout. */
export const withdrawalsRoutes = (route: Route, deps: BackOfficeDeps): void => {
  const { ledger } = deps;
  const withdrawal = { description: 'The withdrawal', schema: WithdrawalRecordSchema };
  const errors = { 404: ['WITHDRAWAL_NOT_FOUND'], 409: ['WITHDRAWAL_INVALID_STATE'] };
  adminOperationRoute(route, '/withdraw/approve', withdrawApprove, deps, {
    summary: 'Approve a withdrawal',
    body: WithdrawalIdBody,
    answer: withdrawal,
    errors,
  });
  adminOperationRoute(route, '/withdraw/reject', withdrawReject, deps, {
    summary: 'Reject a withdrawal',
    body: WithdrawalRejectBody,
    answer: withdrawal,
    errors,
  });
  route(
    'post',
    '/withdraw/retry',
    { kind: 'perm', permission: 'withdrawals.retry' },
    {
      summary: 'Retry a failed withdrawal',
      request: { body: WithdrawalIdBody },
      responses: { 201: { description: 'The withdrawal', schema: WithdrawalRecordSchema } },
      errors,
    },
    async (req, res) => {
      const { id } = parseBody(WithdrawalIdBody, req);
      res.status(201).json(await withdrawalRecord(deps, orThrow(await ledger.retryWithdrawal(id, authOf(req).userId))));
    },
  );
};
