import { createHash, timingSafeEqual } from 'node:crypto';
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

export type InternalRoutesDeps = Readonly<{ ledger: Ledger; serviceToken: string }>;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Both tokens hashed first: the constant-time comparison sees equal lengths, so the length does not leak. */
export const requireServiceToken = (token: string): RequestHandler => {
  const expected = digest(token);
  return (req, _res, next) => {
    const given = req.get('x-service-token');
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      next(new HttpError(401, 'UNAUTHORIZED', 'A valid x-service-token header is required'));
      return;
    }
    next();
  };
};

/** The internal ledger API of game servers and payment providers (`/internal`): validated, idempotent on natural keys. */
export const internalRoutes = ({ ledger, serviceToken }: InternalRoutesDeps): Router => {
  const router = Router();
  router.use(requireServiceToken(serviceToken));

  router.post('/deposits', async (req, res) => {
    const { deposit, created } = orThrow(await ledger.requestDeposit(parseBody(CreateDepositBody, req)));
    res.status(created ? 201 : 200).json(deposit);
  });
  router.post('/deposits/:id/confirm', async (req, res) => {
    const { id } = parseParams(IdParams, req);
    res.json(orThrow(await ledger.confirmDeposit(id, parseBody(DepositTxBody, req))));
  });
  router.post('/deposits/:id/complete', async (req, res) => {
    const { id } = parseParams(IdParams, req);
    res.json(orThrow(await ledger.completeDeposit(id, parseBody(DepositTxBody, req))));
  });
  router.post('/deposits/:id/fail', async (req, res) => {
    const { id } = parseParams(IdParams, req);
    res.json(orThrow(await ledger.failDeposit(id, parseBody(DepositFailBody, req))));
  });

  router.post('/bets', async (req, res) => {
    const { bet, created } = orThrow(await ledger.placeBet(parseBody(PlaceBetBody, req)));
    res.status(created ? 201 : 200).json(bet);
  });
  router.post('/bets/:id/settle', async (req, res) => {
    const { id } = parseParams(IdParams, req);
    res.json(orThrow(await ledger.settleBet(id, parseBody(SettleBetBody, req))));
  });
  router.post('/bets/:id/rollback', async (req, res) => {
    const { id } = parseParams(IdParams, req);
    parseBody(RollbackBetBody, req);
    res.json(orThrow(await ledger.rollbackBet(id)));
  });
  router.post('/bets/:id/error', async (req, res) => {
    const { id } = parseParams(IdParams, req);
    const { errorDetails } = parseBody(ErrorBetBody, req);
    res.json(orThrow(await ledger.errorBet(id, { errorDetails })));
  });

  router.post('/withdrawals', async (req, res) => {
    const headers = parseHeaders(IdempotencyHeaders, req);
    const body = parseBody(CreateWithdrawalBody, req);
    const { withdrawal, created } = orThrow(await ledger.requestWithdrawal({ ...body, operationKey: headers['idempotency-key'] }));
    res.status(created ? 201 : 200).json(withdrawal);
  });
  router.post('/withdrawals/:id/complete', async (req, res) => {
    const { id } = parseParams(IdParams, req);
    res.json(orThrow(await ledger.completeWithdrawal(id, parseBody(WithdrawalCompleteBody, req))));
  });
  router.post('/withdrawals/:id/fail', async (req, res) => {
    const { id } = parseParams(IdParams, req);
    res.json(orThrow(await ledger.failWithdrawal(id, parseBody(WithdrawalFailBody, req))));
  });

  /** Beyond the spec (decisions.md): a claimed affiliate commission paid into the wallet, house:affiliate -> user. */
  router.post('/affiliate-claims', async (req, res) => {
    const { claim, created } = orThrow(await ledger.claimAffiliateCommission(parseBody(AffiliateClaimBody, req)));
    res.status(created ? 201 : 200).json(claim);
  });

  /** Addition to decisions.md: the wallet's balances, folded from its stream (not a read model). */
  router.get('/wallets/:userId/balances', async (req, res) => {
    const { userId } = parseParams(UserIdParams, req);
    res.json(await ledger.balances(userId));
  });

  return router;
};
