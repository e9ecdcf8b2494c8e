import { Router, type Request } from 'express';
import { authOf } from './auth.adapter.js';
import type { Ledger } from '../commands/ledger.types.js';
import { scaleOf } from '../domain/money/currency.js';
import { fromMinor, isParseError, parseDecimal } from '../domain/money/money.js';
import type { Permission } from '../domain/user/permissions.js';
import { withdrawalRecord, withdrawApprove, withdrawReject } from '../commands/admin-operations/withdrawals.js';
import { guardedRoutes } from './access.js';
import { adminOperationRoute } from './admin-operation-route.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import {
  AdminTipBody,
  BalanceUserParams,
  IdempotencyKeyHeaders,
  SetBalanceBody,
  WithdrawalIdBody,
  WithdrawalRejectBody,
} from './money.schemas.js';
import { parseBody, parseHeaders, parseParams } from './validate.js';
import { BalanceRecord, SuccessResponse, WithdrawalRecord as WithdrawalRecordSchema } from './openapi.schemas.js';
import { orThrow } from '../commands/errors.js';

/** Back-office money commands, each through the ledger with the acting admin recorded on its events. */
export const moneyRoutes = (deps: BackOfficeDeps): Router => {
  const { ledger, auth, registry } = deps;
  const router = Router();
  const route = guardedRoutes(router, auth.authenticator, registry);
  const admin = (req: Request) => authOf(req).userId;

  /** An `Idempotency-Key` scoped to the acting admin: two admins picking the same key never swallow each other's commands. */
  const operationKey = (req: Request): string | undefined => {
    const key = parseHeaders(IdempotencyKeyHeaders, req)['idempotency-key'];
    return key === undefined ? undefined : `adm${admin(req)}:${key}`;
  };

  /** A tip and a deduction take the same body and key and differ only in the ledger command. */
  const adminTipRoute = (path: string, permission: Permission, summary: string, done: string, command: Ledger['tip']): void =>
    route(
      'post',
      path,
      { kind: 'perm', permission },
      {
        summary,
        request: { body: AdminTipBody, headers: IdempotencyKeyHeaders },
        responses: { 201: { description: done, schema: SuccessResponse } },
      },
      async (req, res) => {
        const key = operationKey(req);
        const body = parseBody(AdminTipBody, req);
        orThrow(await command({ ...body, adminUserId: admin(req), operationKey: key }));
        res.status(201).json({ success: true });
      },
    );
  adminTipRoute('/admin-tips', 'admin-tips.tip', 'Tip a user', 'Tipped', ledger.tip);
  adminTipRoute(
    '/admin-tips/deduct-balance',
    'admin-tips.deduct-balance',
    "Deduct from a user's balance",
    'Deducted',
    ledger.deductBalance,
  );

  const withdrawal = { description: 'The withdrawal', schema: WithdrawalRecordSchema };
  adminOperationRoute(route, '/withdraw/approve', withdrawApprove, deps, {
    summary: 'Approve a withdrawal',
    body: WithdrawalIdBody,
    answer: withdrawal,
  });
  adminOperationRoute(route, '/withdraw/reject', withdrawReject, deps, {
    summary: 'Reject a withdrawal',
    body: WithdrawalRejectBody,
    answer: withdrawal,
  });
  route(
    'post',
    '/withdraw/retry',
    { kind: 'perm', permission: 'withdrawals.retry' },
    {
      summary: 'Retry a failed withdrawal',
      request: { body: WithdrawalIdBody },
      responses: { 201: { description: 'The withdrawal', schema: WithdrawalRecordSchema } },
    },
    async (req, res) => {
      const { id } = parseBody(WithdrawalIdBody, req);
      res.status(201).json(await withdrawalRecord(deps, orThrow(await ledger.retryWithdrawal(id, admin(req)))));
    },
  );

  route(
    'put',
    '/user/:id/balance',
    { kind: 'superadmin' },
    {
      summary: "Set a user's balance",
      request: { params: BalanceUserParams, body: SetBalanceBody, headers: IdempotencyKeyHeaders },
      responses: { 200: { description: 'The new balance', schema: BalanceRecord } },
    },
    async (req, res) => {
      const { id } = parseParams(BalanceUserParams, req);
      const key = operationKey(req);
      const body = parseBody(SetBalanceBody, req);
      const set = orThrow(await ledger.setBalance({ ...body, userId: id, adminUserId: admin(req), operationKey: key }));
      // The balance that was set, not today's: a retry (same key, same values) answers what the first request did.
      const requested = parseDecimal(body.balance, scaleOf(body.currencyId));
      res.json({ ...set, balance: isParseError(requested) ? set.balance : fromMinor(body.currencyId, requested) });
    },
  );

  return router;
};
