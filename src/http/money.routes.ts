import { Router, type Request } from 'express';
import { authOf } from './auth.adapter.js';
import { scaleOf } from '../domain/money/currency.js';
import { fromMinor, isParseError, parseDecimal } from '../domain/money/money.js';
import { guardedRoutes } from './access.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { BalanceUserParams, SetBalanceBody } from './money.schemas.js';
import { adminOperationKey, IdempotencyKeyHeaders } from './operation-key.js';
import { adminTipsRoutes } from '../wallet/admin-tips/admin-tips.routes.js';
import { withdrawalsRoutes } from '../wallet/withdrawals/withdrawals.routes.js';
import { parseBody, parseParams } from './validate.js';
import { BalanceRecord } from './openapi.schemas.js';
import { orThrow } from '../commands/errors.js';

/** Back-office money commands, each through the ledger with the acting admin recorded on its events. */
export const moneyRoutes = (deps: BackOfficeDeps): Router => {
  const { ledger, auth, registry } = deps;
  const router = Router();
  const route = guardedRoutes(router, auth.authenticator, registry);
  const admin = (req: Request) => authOf(req).userId;

  adminTipsRoutes(route, deps);

  withdrawalsRoutes(route, deps);

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
      const key = adminOperationKey(req);
      const body = parseBody(SetBalanceBody, req);
      const set = orThrow(await ledger.setBalance({ ...body, userId: id, adminUserId: admin(req), operationKey: key }));
      // The balance that was set, not today's: a retry (same key, same values) answers what the first request did.
      const requested = parseDecimal(body.balance, scaleOf(body.currencyId));
      res.json({ ...set, balance: isParseError(requested) ? set.balance : fromMinor(body.currencyId, requested) });
    },
  );

  return router;
};
