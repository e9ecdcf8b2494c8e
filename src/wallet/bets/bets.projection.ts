import { BETS_COUNTS } from '../../read-models/list-counts/list-counts.js';
import { entityProjection } from '../../read-models/list-projections.js';
import { businessTimeOf } from '../../domain/wallet/wallet.events.js';

/** Bets: CREATED (stake debited) -> SETTLED (payout, multiplier, settled_at) | ROLLBACK | ERROR (error_details). */
export const betsProjection = entityProjection({
  name: 'bets',
  version: 2,
  list: BETS_COUNTS,
  patchable: ['status', 'payout', 'usd_payout', 'multiplier', 'error_details', 'updated_at', 'settled_at'],
  id: (d) => d.betId,
  create: {
    BetPlaced: (d, { userId }) => ({
      id: d.betId,
      user_id: userId,
      round_id: d.roundId,
      game_id: d.gameId,
      game_name: d.gameIdentity.name,
      game_slug: d.gameIdentity.slug,
      game_type: d.gameIdentity.type,
      game_provider: d.gameIdentity.provider.name,
      currency_id: d.currencyId,
      amount: d.amount,
      usd_amount: d.usdAmount,
      payout: '0',
      usd_payout: '0',
      multiplier: null,
      status: 'CREATED',
      error_details: null,
      transaction_id: d.transactionId,
      created_at: d.at,
      effective_at: businessTimeOf(d),
      updated_at: d.at,
      settled_at: null,
    }),
  },
  patch: {
    BetSettled: (d) => ({
      status: 'SETTLED',
      payout: d.payout,
      usd_payout: d.usdPayout,
      multiplier: d.multiplier,
      settled_at: d.at,
      updated_at: d.at,
    }),
    BetRolledBack: (d) => ({ status: 'ROLLBACK', updated_at: d.at }),
    BetErrored: (d) => ({ status: 'ERROR', error_details: d.errorDetails, updated_at: d.at }),
  },
});
