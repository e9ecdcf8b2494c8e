import { orThrow } from '../../commands/errors.js';
import type { Ledger } from '../../commands/ledger.types.js';
import { made, ok, type InternalRoute } from '../../http/internal-route.js';
import { effectiveAt, GameIdentitySchema, id, IdParams, text } from '../../http/internal.schemas.js';
import { currencyId, DecimalString, userId, withScales } from '../../http/money-fields.schemas.js';
import { parseBody, parseParams, z } from '../../http/validate.js';
import { required } from '../../shared/zod.js';
import type { RouteDocs } from '../../http/access.js';
import { createdOrRepeat, InternalBet } from '../../http/internal.answers.js';

export const PlaceBetBody = withScales(
  z.object({
    id,
    userId,
    roundId: id,
    gameId: z
      .number({ error: required('a number') })
      .int('must be an integer')
      .nonnegative('must not be negative')
      .max(Number.MAX_SAFE_INTEGER),
    gameIdentity: GameIdentitySchema,
    currencyId,
    amount: DecimalString,
    usdAmount: DecimalString.optional(),
    effectiveAt,
  }),
  [
    { field: 'amount', scale: 'currency', positive: true },
    { field: 'usdAmount', scale: 'usd', positive: false },
  ],
).openapi('InternalPlaceBet');

/** The bet's currency is known only to the ledger, which checks the payout's scale (400 with the field too). */
export const SettleBetBody = withScales(
  z.object({
    payout: DecimalString,
    usdPayout: DecimalString.optional(),
    effectiveAt,
  }),
  [{ field: 'usdPayout', scale: 'usd', positive: false }],
).openapi('InternalSettleBet');
export const RollbackBetBody = z.object({ effectiveAt }).openapi('InternalRollbackBet');
export const ErrorBetBody = z.object({ errorDetails: text(2000), effectiveAt }).openapi('InternalErrorBet');

const betStep = (summary: string, body: z.ZodType): RouteDocs => ({
  summary,
  description: 'A repeat of the step already taken with the same terms answers the bet again; any other step after it is 409.',
  request: { params: IdParams, body },
  responses: { 200: { description: 'The bet', schema: InternalBet } },
  errors: { 404: ['BET_NOT_FOUND'], 409: ['BET_INVALID_STATE'], 422: ['IDEMPOTENCY_KEY_REUSED'] },
});

/** A game server's bet on the internal ledger API: placed, then settled, rolled back or errored (idempotent on its id). */
export const betInternalRoutes = (ledger: Ledger): readonly InternalRoute[] => [
  {
    method: 'post',
    path: '/bets',
    docs: {
      summary: "Place a game server's bet: the stake is debited (CREATED)",
      description: 'Idempotent on the bet id: a repeat with the same terms answers 200 with the first bet; other terms: 422.',
      request: { body: PlaceBetBody },
      responses: createdOrRepeat('The bet, CREATED,', InternalBet, 'the bet id'),
      errors: {
        403: ['USER_BANNED', 'USERNAME_REQUIRED', 'USER_SELF_EXCLUDED', 'BET_LIMIT_EXCEEDED'],
        404: ['USER_NOT_FOUND'],
        409: ['INSUFFICIENT_FUNDS', 'BET_INVALID_STATE'],
        422: ['IDEMPOTENCY_KEY_REUSED'],
      },
    },
    handle: async (req) => {
      const { bet, created } = orThrow(await ledger.placeBet(parseBody(PlaceBetBody, req)));
      return made(created, bet);
    },
  },
  {
    method: 'post',
    path: '/bets/:id/settle',
    docs: betStep('Settle a bet: the payout is credited (SETTLED)', SettleBetBody),
    handle: async (req) => ok(orThrow(await ledger.settleBet(parseParams(IdParams, req).id, parseBody(SettleBetBody, req)))),
  },
  {
    method: 'post',
    path: '/bets/:id/rollback',
    docs: betStep('Roll a bet back: the stake is refunded (ROLLBACK)', RollbackBetBody),
    handle: async (req) => {
      const { id } = parseParams(IdParams, req);
      return ok(orThrow(await ledger.rollbackBet(id, parseBody(RollbackBetBody, req))));
    },
  },
  {
    method: 'post',
    path: '/bets/:id/error',
    docs: betStep('Mark a bet errored: the stake is refunded (ERROR)', ErrorBetBody),
    handle: async (req) => {
      const { id } = parseParams(IdParams, req);
      return ok(orThrow(await ledger.errorBet(id, parseBody(ErrorBetBody, req))));
    },
  },
];
