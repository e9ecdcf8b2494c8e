import { orThrow } from '../../commands/errors.js';
import type { Ledger } from '../../commands/ledger.types.js';
import { made, ok, type InternalRoute } from '../../http/internal-route.js';
import { effectiveAt, GameIdentitySchema, id, IdParams, text } from '../../http/internal.schemas.js';
import { currencyId, DecimalString, userId, withScales } from '../../http/money-fields.schemas.js';
import { parseBody, parseParams, z } from '../../http/validate.js';
import { required } from '../../shared/zod.js';

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

/** A game server's bet on the internal ledger API: placed, then settled, rolled back or errored (idempotent on its id). */
export const betInternalRoutes = (ledger: Ledger): readonly InternalRoute[] => [
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
      return ok(orThrow(await ledger.rollbackBet(id, parseBody(RollbackBetBody, req))));
    },
  },
  {
    method: 'post',
    path: '/bets/:id/error',
    handle: async (req) => {
      const { id } = parseParams(IdParams, req);
      return ok(orThrow(await ledger.errorBet(id, parseBody(ErrorBetBody, req))));
    },
  },
];
