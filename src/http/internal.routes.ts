import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Router, type RequestHandler } from 'express';
import type { Ledger } from '../commands/ledger.types.js';
import { HttpError } from './errors.js';
import {
  AffiliateClaimBody,
  CreateDepositBody,
  CreateWithdrawalBody,
  DepositFailBody,
  DepositTxBody,
  ErrorBetBody,
  IdempotencyHeaders,
  IdParams,
  PlaceBetBody,
  RollbackBetBody,
  SettleBetBody,
  UserIdParams,
  WithdrawalCompleteBody,
  WithdrawalFailBody,
} from './internal.schemas.js';
import { parseBody, parseHeaders, parseParams } from './validate.js';
import { orThrow } from '../commands/errors.js';

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

/** What a route reads of a request: node's own headers, the path's parameters, the parsed JSON body. */
export type InternalInput = Readonly<{ headers: IncomingHttpHeaders; params: unknown; body: unknown }>;
export type InternalAnswer = Readonly<{ status: number; body: unknown }>;
export type InternalRoute = Readonly<{ method: 'post' | 'get'; path: string; handle: (input: InternalInput) => Promise<InternalAnswer> }>;

const ok = (body: unknown): InternalAnswer => ({ status: 200, body });
const made = (created: boolean, body: unknown): InternalAnswer => ({ status: created ? 201 : 200, body });

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
  {
    method: 'post',
    path: '/bets',
    handle: async (req) => {
      const { bet, created } = orThrow(await ledger.placeBet(parseBody(PlaceBetBody, req)));
      return made(created, bet);
    },
  },
  {
    method: 'post',
    path: '/bets/:id/settle',
    handle: async (req) => ok(orThrow(await ledger.settleBet(parseParams(IdParams, req).id, parseBody(SettleBetBody, req)))),
  },
  {
    method: 'post',
    path: '/bets/:id/rollback',
    handle: async (req) => {
      const { id } = parseParams(IdParams, req);
      parseBody(RollbackBetBody, req);
      return ok(orThrow(await ledger.rollbackBet(id)));
    },
  },
  {
    method: 'post',
    path: '/bets/:id/error',
    handle: async (req) => {
      const { id } = parseParams(IdParams, req);
      const { errorDetails } = parseBody(ErrorBetBody, req);
      return ok(orThrow(await ledger.errorBet(id, { errorDetails })));
    },
  },
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
