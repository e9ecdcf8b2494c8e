import { BETS_COUNTS, counted } from '../list-counts/list-counts.js';
import { EntityFold, entityStatements, walletRecords, type Projection } from '../../projections/projection.js';

const HANDLES: readonly string[] = ['BetPlaced', 'BetSettled', 'BetRolledBack', 'BetErrored'];
const PATCHABLE = ['status', 'payout', 'usd_payout', 'multiplier', 'error_details', 'updated_at', 'settled_at'];

/** Bets: CREATED (stake debited) -> SETTLED (payout, multiplier, settled_at) | ROLLBACK | ERROR (error_details). */
export const betsProjection: Projection = {
  name: 'bets',
  version: 2,
  handles: HANDLES,
  tables: ['bets', 'bets_counts'],
  project(events) {
    const fold = new EntityFold();
    for (const { userId, event } of walletRecords(events, HANDLES)) {
      const at = event.data.at;
      switch (event.type) {
        case 'BetPlaced': {
          const d = event.data;
          fold.create(d.betId, {
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
            created_at: at,
            updated_at: at,
            settled_at: null,
          });
          break;
        }
        case 'BetSettled': {
          const d = event.data;
          fold.patch(d.betId, {
            status: 'SETTLED',
            payout: d.payout,
            usd_payout: d.usdPayout,
            multiplier: d.multiplier,
            settled_at: at,
            updated_at: at,
          });
          break;
        }
        case 'BetRolledBack':
          fold.patch(event.data.betId, { status: 'ROLLBACK', updated_at: at });
          break;
        case 'BetErrored':
          fold.patch(event.data.betId, { status: 'ERROR', error_details: event.data.errorDetails, updated_at: at });
          break;
      }
    }
    return counted(BETS_COUNTS, fold.inserts(), fold.patches('id'), entityStatements('bets', 'id', fold, PATCHABLE));
  },
};
