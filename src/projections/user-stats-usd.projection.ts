import { insertRows, walletRecords, type Projection, type Row, type Sql } from './projection.js';

const HANDLES: readonly string[] = [
  'DepositCompleted', 'BetPlaced', 'BetSettled', 'BetRolledBack', 'BetErrored', 'WithdrawalRequested', 'WithdrawalCompleted', 'WithdrawalRejected',
];

/**
 * Per-user USD figures (spec "User USD stats"), all from the USD values the events carry:
 *   total_wagered   = Σ usdAmount of bets that reached SETTLED (a bet counts when it settles;
 *                     ROLLBACK and ERROR bets never count; an open CREATED bet does not count yet)
 *   total_payouts   = Σ usdPayout of SETTLED bets (zero payouts included)
 *   total_bets      = number of SETTLED bets
 *   total_deposits  = Σ usdAmount of deposits that reached COMPLETE (DepositCompleted)
 *   total_withdraws = Σ usdAmount of withdrawals that reached COMPLETE (WithdrawalCompleted; PENDING,
 *                     CONFIRMED, FAILED and DENIED ones do not count)
 *   ggr             = total_wagered − total_payouts   (generated column)
 *   ltv             = total_deposits − total_withdraws (generated column)
 *   first/last_deposit_at = earliest / latest DepositCompleted time
 *   last_wagered_at = latest placement time of a SETTLED bet
 * BetSettled and WithdrawalCompleted do not repeat the USD stake, so placements and requests wait in the
 * private table user_stats_pending until their outcome: counted, or dropped (rollback, error, reject).
 */
export const userStatsUsdProjection: Projection = {
  name: 'user-stats-usd',
  version: 1,
  handles: HANDLES,
  tables: ['user_stats_usd', 'user_stats_pending'],
  project(events) {
    const pending: Row[] = [];
    const counted: Row[] = [];
    const closed: Row[] = [];
    const deposits: Row[] = [];
    for (const { userId, event } of walletRecords(events, HANDLES)) {
      const at = event.data.at;
      switch (event.type) {
        case 'BetPlaced':
          pending.push({ kind: 'bet', ref_id: event.data.betId, user_id: userId, usd_amount: event.data.usdAmount, at });
          break;
        case 'WithdrawalRequested':
          pending.push({ kind: 'withdrawal', ref_id: event.data.withdrawalId, user_id: userId, usd_amount: event.data.usdAmount, at });
          break;
        case 'BetSettled':
          counted.push({ kind: 'bet', ref_id: event.data.betId, usd_payout: event.data.usdPayout, at });
          closed.push({ kind: 'bet', ref_id: event.data.betId });
          break;
        case 'WithdrawalCompleted':
          counted.push({ kind: 'withdrawal', ref_id: event.data.withdrawalId, usd_payout: '0', at });
          closed.push({ kind: 'withdrawal', ref_id: event.data.withdrawalId });
          break;
        case 'BetRolledBack':
        case 'BetErrored':
          closed.push({ kind: 'bet', ref_id: event.data.betId });
          break;
        case 'WithdrawalRejected':
          closed.push({ kind: 'withdrawal', ref_id: event.data.withdrawalId });
          break;
        case 'DepositCompleted':
          deposits.push({ user_id: userId, usd_amount: event.data.usdAmount, at });
          break;
      }
    }
    // Placements first: an outcome in the same batch then finds its stake (causal order is preserved).
    const statements: Sql[] = [...insertRows('user_stats_pending', pending)];
    if (counted.length > 0 || deposits.length > 0) statements.push({ text: ACCUMULATE, values: [JSON.stringify(counted), JSON.stringify(deposits)] });
    if (closed.length > 0) {
      statements.push({
        text: `DELETE FROM user_stats_pending AS p USING jsonb_to_recordset($1::jsonb) AS c(kind text, ref_id text)
          WHERE p.kind = c.kind AND p.ref_id = c.ref_id`,
        values: [JSON.stringify(closed)],
      });
    }
    return statements;
  },
};

/** One row of increments per user for the batch, added to the stored figures. LEAST/GREATEST skip NULLs. */
const ACCUMULATE = `
  WITH outcome AS (
    SELECT p.user_id,
      CASE WHEN p.kind = 'bet' THEN p.usd_amount ELSE 0 END AS wagered,
      CASE WHEN p.kind = 'bet' THEN c.usd_payout ELSE 0 END AS payouts,
      CASE WHEN p.kind = 'bet' THEN 1 ELSE 0 END AS bets,
      0::numeric AS deposits,
      CASE WHEN p.kind = 'withdrawal' THEN p.usd_amount ELSE 0 END AS withdraws,
      NULL::timestamptz AS deposit_at,
      CASE WHEN p.kind = 'bet' THEN p.at END AS wagered_at,
      c.at
    FROM jsonb_to_recordset($1::jsonb) AS c(kind text, ref_id text, usd_payout numeric, at timestamptz)
    JOIN user_stats_pending AS p ON p.kind = c.kind AND p.ref_id = c.ref_id
    UNION ALL
    SELECT d.user_id, 0, 0, 0, d.usd_amount, 0, d.at, NULL, d.at
    FROM jsonb_to_recordset($2::jsonb) AS d(user_id bigint, usd_amount numeric, at timestamptz)
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
