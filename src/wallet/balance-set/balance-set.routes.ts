import { authOf } from '../../http/auth.adapter.js';
import { BalanceRecord } from '../../http/openapi.schemas.js';
import { adminOperationKey, IdempotencyKeyHeaders } from '../../http/operation-key.js';
import type { Route } from '../../http/read-route.js';
import type { BackOfficeDeps } from '../../http/back-office.deps.js';
import { parseBody, parseParams } from '../../http/validate.js';
import { orThrow } from '../../commands/errors.js';
import { scaleOf } from '../../domain/money/currency.js';
import { fromMinor, isParseError, parseDecimal } from '../../domain/money/money.js';
import { BalanceUserParams, SetBalanceBody } from './balance-set.schemas.js';

/** PUT /user/:id/balance: a superadmin sets a user's balance in one currency. */
export const balanceSetRoutes = (route: Route, { ledger }: Pick<BackOfficeDeps, 'ledger'>): void => {
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
      const set = orThrow(await ledger.setBalance({ ...body, userId: id, adminUserId: authOf(req).userId, operationKey: key }));
      // The balance that was set, not today's: a retry (same key, same values) answers what the first request did.
      const requested = parseDecimal(body.balance, scaleOf(body.currencyId));
      res.json({ ...set, balance: isParseError(requested) ? set.balance : fromMinor(body.currencyId, requested) });
    },
  );
};
