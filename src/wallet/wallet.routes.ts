import { LEDGER_ERRORS } from '../commands/errors.js';
import { errorCodesOf } from '../http/access.js';
import { Router } from 'express';
import { guardedRoutes } from '../http/access.js';
import type { BackOfficeDeps } from '../http/back-office.deps.js';
import { adminTipsRoutes } from './admin-tips/admin-tips.routes.js';
import { balanceSetRoutes } from './balance-set/balance-set.routes.js';
import { depositsRoutes } from './deposits/deposits.routes.js';
import { withdrawalsRoutes } from './withdrawals/withdrawals.routes.js';

/** Back-office money commands, each through the ledger with the acting admin recorded on its events. */
export const moneyRoutes = (deps: BackOfficeDeps): Router => {
  const { auth, registry } = deps;
  const router = Router();
  const route = guardedRoutes(router, auth.authenticator, registry, '', errorCodesOf(LEDGER_ERRORS));

  adminTipsRoutes(route, deps);
  withdrawalsRoutes(route, deps);
  depositsRoutes(route, deps);

  balanceSetRoutes(route, deps);

  return router;
};
