import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import type { Ledger } from '../commands/ledger.types.js';
import { HttpError } from './http-errors.js';
import {
  AffiliateClaimBody,
  CreateDepositBody,
  CreateWithdrawalBody,
  DepositFailBody,
  DepositTxBody,
  IdempotencyHeaders,
  IdParams,
  UserIdParams,
  WithdrawalCompleteBody,
  WithdrawalFailBody,
} from './internal.schemas.js';
import { parseBody, parseHeaders, parseParams } from './validate.js';
import { orThrow } from '../commands/errors.js';
import { betInternalRoutes } from '../wallet/bets/bets.internal.js';
import { made, ok, type InternalRoute } from './internal-route.js';

export type { InternalAnswer, InternalInput, InternalRoute } from './internal-route.js';

export type InternalRoutesDeps = Readonly<{ routes: readonly InternalRoute[]; serviceToken: string }>;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Both tokens hashed first: the constant-time comparison sees equal lengths, so the length does not leak. */
export const serviceTokenCheck = (token: string): ((given: string | undefined) => boolean) => {
  const expected = digest(token);
  return (given) => given !== undefined && timingSafeEqual(digest(given), expected);
};

export const requireServiceToken = (token: string): RequestHandler => {
  const matches = serviceTokenCheck(token);
  return (req, _res, next) => {
    if (!matches(req.get('x-service-token'))) {
      next(new HttpError(401, 'UNAUTHORIZED', 'A valid x-service-token header is required'));
      return;
    }
    next();
  };
};

/** The internal ledger API of game servers and payment providers (`/internal`): validated, idempotent on natural keys. */
export const internalRouteTable = (ledger: Ledger): readonly InternalRoute[] => [
  {
    method: 'post',
    path: '/deposits',
    handle: async (req) => {
      const { deposit, created } = orThrow(await ledger.requestDeposit(parseBody(CreateDepositBody, req)));
      return made(created, deposit);
    },
  },
  {
    method: 'post',
    path: '/deposits/:id/confirm',
    handle: async (req) => ok(orThrow(await ledger.confirmDeposit(parseParams(IdParams, req).id, parseBody(DepositTxBody, req)))),
  },
  {
    method: 'post',
    path: '/deposits/:id/complete',
    handle: async (req) => ok(orThrow(await ledger.completeDeposit(parseParams(IdParams, req).id, parseBody(DepositTxBody, req)))),
  },
  {
    method: 'post',
    path: '/deposits/:id/fail',
    handle: async (req) => ok(orThrow(await ledger.failDeposit(parseParams(IdParams, req).id, parseBody(DepositFailBody, req)))),
  },
  ...betInternalRoutes(ledger),
  {
    method: 'post',
    path: '/withdrawals',
    handle: async (req) => {
      const headers = parseHeaders(IdempotencyHeaders, req);
      const body = parseBody(CreateWithdrawalBody, req);
      const { withdrawal, created } = orThrow(await ledger.requestWithdrawal({ ...body, operationKey: headers['idempotency-key'] }));
      return made(created, withdrawal);
    },
  },
  {
    method: 'post',
    path: '/withdrawals/:id/complete',
    handle: async (req) =>
      ok(orThrow(await ledger.completeWithdrawal(parseParams(IdParams, req).id, parseBody(WithdrawalCompleteBody, req)))),
  },
  {
    method: 'post',
    path: '/withdrawals/:id/fail',
    handle: async (req) => ok(orThrow(await ledger.failWithdrawal(parseParams(IdParams, req).id, parseBody(WithdrawalFailBody, req)))),
  },
  /** Beyond the spec (decisions.md): a claimed affiliate commission paid into the wallet, house:affiliate -> user. */
  {
    method: 'post',
    path: '/affiliate-claims',
    handle: async (req) => {
      const { claim, created } = orThrow(await ledger.claimAffiliateCommission(parseBody(AffiliateClaimBody, req)));
      return made(created, claim);
    },
  },
  /** Addition to decisions.md: the wallet's balances, folded from its stream (not a read model). */
  {
    method: 'get',
    path: '/wallets/:userId/balances',
    handle: async (req) => ok(await ledger.balances(parseParams(UserIdParams, req).userId)),
  },
];

export const internalRoutes = ({ routes, serviceToken }: InternalRoutesDeps): Router => {
  const router = Router();
  router.use(requireServiceToken(serviceToken));
  for (const route of routes) {
    router[route.method](route.path, async (req, res) => {
      const { status, body } = await route.handle(req);
      res.status(status).json(body);
    });
  }
  return router;
};
