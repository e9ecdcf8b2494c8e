import { walletRecords, type Projection, type Row } from '../../projections/projection.js';
import { overRows } from '../batch-rows.js';

const HANDLES: readonly string[] = ['DepositCompleted', 'BetSettled', 'WithdrawalCompleted'];

/** Per-user USD stats (docs/back-office.md) from settled bets and completed deposits and withdrawals, whose events carry the USD. */
export const userStatsUsdProjection: Projection = {
  name: 'user-stats-usd',
  version: 1,
  handles: HANDLES,
  tables: ['user_stats_usd'],
  project(events) {
    const outcomes: Row[] = [];
    for (const { userId, event } of walletRecords(events, HANDLES)) {
      const at = event.data.at;
      switch (event.type) {
        case 'BetSettled':
          outcomes.push({
            user_id: userId,
            wagered: event.data.usdAmount,
            payouts: event.data.usdPayout,
            bets: 1,
            deposits: '0',
            withdraws: '0',
            deposit_at: null,
            wagered_at: event.data.placedAt,
            at,
          });
          break;
        case 'WithdrawalCompleted':
          outcomes.push({
            user_id: userId,
            wagered: '0',
            payouts: '0',
            bets: 0,
            deposits: '0',
            withdraws: event.data.usdAmount,
            deposit_at: null,
            wagered_at: null,
            at,
          });
          break;
        case 'DepositCompleted':
          outcomes.push({
            user_id: userId,
            wagered: '0',
            payouts: '0',
            bets: 0,
            deposits: event.data.usdAmount,
            withdraws: '0',
            deposit_at: at,
            wagered_at: null,
            at,
          });
          break;
      }
    }
    return overRows(ACCUMULATE, outcomes);
  },
};

/** One row of increments per user for the batch, added to the stored figures. LEAST/GREATEST skip NULLs. */
const ACCUMULATE = `
  WITH outcome AS (
    SELECT * FROM json_to_recordset($1::json) AS o(user_id bigint, wagered numeric, payouts numeric, bets integer,
      deposits numeric, withdraws numeric, deposit_at timestamptz, wagered_at timestamptz, at timestamptz)
  )
  INSERT INTO user_stats_usd AS s (user_id, total_wagered, total_payouts, total_deposits, total_withdraws, total_bets,
    first_deposit_at, last_deposit_at, last_wagered_at, updated_at)
  SELECT user_id, trim_scale(sum(wagered)), trim_scale(sum(payouts)), trim_scale(sum(deposits)), trim_scale(sum(withdraws)), sum(bets),
    min(deposit_at), max(deposit_at), max(wagered_at), max(at)
  FROM outcome GROUP BY user_id
  ON CONFLICT (user_id) DO UPDATE SET
    total_wagered = trim_scale(s.total_wagered + excluded.total_wagered),
    total_payouts = trim_scale(s.total_payouts + excluded.total_payouts),
    total_deposits = trim_scale(s.total_deposits + excluded.total_deposits),
    total_withdraws = trim_scale(s.total_withdraws + excluded.total_withdraws),
    total_bets = s.total_bets + excluded.total_bets,
    first_deposit_at = LEAST(s.first_deposit_at, excluded.first_deposit_at),
    last_deposit_at = GREATEST(s.last_deposit_at, excluded.last_deposit_at),
    last_wagered_at = GREATEST(s.last_wagered_at, excluded.last_wagered_at),
    updated_at = GREATEST(s.updated_at, excluded.updated_at)`;
