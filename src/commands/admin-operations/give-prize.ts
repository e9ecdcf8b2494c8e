import { isLeft } from 'fp-ts/lib/Either.js';
import type { LeaderboardError } from '../../leaderboards/leaderboard.errors.js';
import { createPrizes } from '../../leaderboards/leaderboard.prizes.js';
import { createLeaderboardQueries } from '../../leaderboards/leaderboards.queries.js';
import { leaderboardError, ledgerError, LEADERBOARD_ERRORS } from '../errors.js';
import type { LedgerError } from '../ledger.types.js';
import type { AppError } from '../../shared/app-error.js';
import type { AdminOperation, AdminOperationDeps } from './admin-operation.js';
import { GivePrizeBody, IdempotencyHeaders } from './give-prize.schemas.js';

const refusal = (e: LeaderboardError | LedgerError): AppError =>
  e._tag in LEADERBOARD_ERRORS ? leaderboardError(e as LeaderboardError) : ledgerError(e as LedgerError);

/** POST /leaderboards/give-prize and the LeaderboardGivePrize event: keys scoped to the admin, so either surface pays once. */
export const GivePrizeCommand = GivePrizeBody.safeExtend({ idempotencyKey: IdempotencyHeaders.shape['idempotency-key'] });
export const givePrize = {
  permission: 'leaderboard.give-prize',
  schema: GivePrizeCommand,
  run: async ({ pool, ledger }, { idempotencyKey, ...body }, adminUserId) => {
    const paid = await createPrizes({ pool, ledger }).give({
      ...body,
      adminUserId,
      idempotencyKey: idempotencyKey === undefined ? undefined : `${adminUserId}:${idempotencyKey}`,
    });
    if (isLeft(paid)) throw refusal(paid.left);
    const user = await createLeaderboardQueries(pool).user(body.leaderboardId, body.userId);
    return { ...user, payment: paid.right };
  },
} satisfies AdminOperation<Pick<AdminOperationDeps, 'pool' | 'ledger'>, typeof GivePrizeCommand, unknown>;
