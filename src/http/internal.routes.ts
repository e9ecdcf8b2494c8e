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
import type { RouteDocs } from './access.js';
import type { DocumentedRoute } from './openapi.js';
import { createdOrRepeat, InternalAffiliateClaim, InternalBalances, InternalDeposit, InternalWithdrawal } from './internal.answers.js';
import type { z } from './validate.js';

const depositStep = (summary: string, body: z.ZodType): RouteDocs => ({
  summary,
  description: 'A repeat of a step already taken answers the deposit again; a step its status does not allow is 409.',
  request: { params: IdParams, body },
  responses: { 200: { description: 'The deposit', schema: InternalDeposit } },
  errors: { 404: ['DEPOSIT_NOT_FOUND'], 409: ['DEPOSIT_INVALID_STATE'], 422: ['IDEMPOTENCY_KEY_REUSED'] },
});

export type { InternalAnswer, InternalInput, InternalRoute } from './internal-route.js';

export type InternalRoutesDeps = Readonly<{ routes: readonly InternalRoute[]; serviceToken: string; document?: () => unknown }>;

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
    docs: {
      summary: 'Record a deposit a payment provider reports (PENDING)',
      description: 'Idempotent on providerId + externalId: a repeat with the same terms answers 200 with the first deposit.',
      request: { body: CreateDepositBody },
      responses: createdOrRepeat('The deposit, PENDING,', InternalDeposit, 'providerId + externalId'),
      errors: { 403: ['USER_BANNED'], 404: ['USER_NOT_FOUND'], 422: ['IDEMPOTENCY_KEY_REUSED'] },
    },
    handle: async (req) => {
      const { deposit, created } = orThrow(await ledger.requestDeposit(parseBody(CreateDepositBody, req)));
      return made(created, deposit);
    },
  },
  {
    method: 'post',
    path: '/deposits/:id/confirm',
    docs: depositStep('Confirm a deposit (CONFIRMED)', DepositTxBody),
    handle: async (req) => ok(orThrow(await ledger.confirmDeposit(parseParams(IdParams, req).id, parseBody(DepositTxBody, req)))),
  },
  {
    method: 'post',
    path: '/deposits/:id/complete',
    docs: depositStep('Complete a deposit: credits the wallet once (COMPLETE)', DepositTxBody),
    handle: async (req) => ok(orThrow(await ledger.completeDeposit(parseParams(IdParams, req).id, parseBody(DepositTxBody, req)))),
  },
  {
    method: 'post',
    path: '/deposits/:id/fail',
    docs: depositStep('Fail a deposit (FAILED)', DepositFailBody),
    handle: async (req) => ok(orThrow(await ledger.failDeposit(parseParams(IdParams, req).id, parseBody(DepositFailBody, req)))),
  },
  ...betInternalRoutes(ledger),
  {
    method: 'post',
    path: '/withdrawals',
    docs: {
      summary: 'Request a withdrawal: the funds are held (PENDING) until an admin approves it',
      description:
        'Idempotent on the optional Idempotency-Key header: a repeat with the same key and terms answers 200 with the first ' +
        'withdrawal; the same key with other terms is 422 IDEMPOTENCY_KEY_REUSED. Without the header every request is new.',
      request: { body: CreateWithdrawalBody, headers: IdempotencyHeaders },
      responses: createdOrRepeat('The withdrawal, PENDING,', InternalWithdrawal, 'the Idempotency-Key'),
      errors: {
        403: ['USER_BANNED', 'USERNAME_REQUIRED', 'USER_SELF_EXCLUDED'],
        404: ['USER_NOT_FOUND'],
        409: ['INSUFFICIENT_FUNDS'],
        422: ['IDEMPOTENCY_KEY_REUSED'],
      },
    },
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
    docs: {
      summary: 'Complete an approved withdrawal (COMPLETE)',
      description: 'Only after admin approval (CONFIRMED); a repeat of the same step answers the withdrawal again.',
      request: { params: IdParams, body: WithdrawalCompleteBody },
      responses: { 200: { description: 'The withdrawal', schema: InternalWithdrawal } },
      errors: { 404: ['WITHDRAWAL_NOT_FOUND'], 409: ['WITHDRAWAL_INVALID_STATE'], 422: ['IDEMPOTENCY_KEY_REUSED'] },
    },
    handle: async (req) =>
      ok(orThrow(await ledger.completeWithdrawal(parseParams(IdParams, req).id, parseBody(WithdrawalCompleteBody, req)))),
  },
  {
    method: 'post',
    path: '/withdrawals/:id/fail',
    docs: {
      summary: 'Fail an approved withdrawal: the held funds return (FAILED)',
      description: 'Only after admin approval (CONFIRMED); a repeat of the same step answers the withdrawal again.',
      request: { params: IdParams, body: WithdrawalFailBody },
      responses: { 200: { description: 'The withdrawal', schema: InternalWithdrawal } },
      errors: { 404: ['WITHDRAWAL_NOT_FOUND'], 409: ['WITHDRAWAL_INVALID_STATE'], 422: ['IDEMPOTENCY_KEY_REUSED'] },
    },
    handle: async (req) => ok(orThrow(await ledger.failWithdrawal(parseParams(IdParams, req).id, parseBody(WithdrawalFailBody, req)))),
  },
  /** Beyond the spec (decisions.md): a claimed affiliate commission paid into the wallet, house:affiliate -> user. */
  {
    method: 'post',
    path: '/affiliate-claims',
    docs: {
      summary: 'Pay a claimed affiliate commission into the wallet (house:affiliate to the user)',
      description: 'Idempotent on claimId: a repeat with the same terms answers 200 with the first result.',
      request: { body: AffiliateClaimBody },
      responses: createdOrRepeat('The claim, paid,', InternalAffiliateClaim, 'claimId'),
      errors: { 403: ['USER_BANNED'], 404: ['USER_NOT_FOUND'], 409: ['INSUFFICIENT_FUNDS'], 422: ['IDEMPOTENCY_KEY_REUSED'] },
    },
    handle: async (req) => {
      const { claim, created } = orThrow(await ledger.claimAffiliateCommission(parseBody(AffiliateClaimBody, req)));
      return made(created, claim);
    },
  },
  /** Addition to decisions.md: the wallet's balances, folded from its stream (not a read model). */
  {
    method: 'get',
    path: '/wallets/:userId/balances',
    docs: {
      summary: "A wallet's balances, folded from its stream (not a read model)",
      request: { params: UserIdParams },
      responses: { 200: { description: 'One entry per currency the wallet has held', schema: InternalBalances } },
    },
    handle: async (req) => ok(await ledger.balances(parseParams(UserIdParams, req).userId)),
  },
];

/** The internal API's routes as the OpenAPI document describes them (under `/internal`, behind the service token). */
export const internalDocumented = (routes: readonly InternalRoute[]): DocumentedRoute[] =>
  routes.map((r) => ({ method: r.method, path: `/internal${r.path}`, access: { kind: 'auth' }, docs: r.docs }));

/** `document`: served at GET /internal/openapi.json without the token (it describes, it holds no data). */
export const internalRoutes = ({ routes, serviceToken, document }: InternalRoutesDeps): Router => {
  const router = Router();
  if (document) {
    router.get('/openapi.json', (_req, res) => {
      res.json(document());
    });
  }
  router.use(requireServiceToken(serviceToken));
  for (const route of routes) {
    router[route.method](route.path, async (req, res) => {
      const { status, body } = await route.handle(req);
      res.status(status).json(body);
    });
  }
  return router;
};
