import { describe, expect, it } from 'vitest';
import { allProjections } from '../../../src/read-models/all-projections.js';
import { transactionsProjection } from '../../../src/read-models/transactions/transactions.projection.js';
import { walletBalancesProjection } from '../../../src/read-models/wallet-balances/wallet-balances.projection.js';
import { accountBalancesProjection } from '../../../src/read-models/account-balances/account-balances.projection.js';
import { depositsProjection } from '../../../src/wallet/deposits/deposits.projection.js';
import { userStatsUsdProjection } from '../../../src/read-models/user-stats-usd/user-stats-usd.projection.js';
import type { Sql } from '../../../src/projections/projection.js';
import { recorded, WalletScript } from './wallet-fixtures.js';

/** The JSON rows a statement carries in parameter `i`. */
const rows = (s: Sql | undefined, i = 0): Record<string, unknown>[] => JSON.parse(String(s?.values[i])) as Record<string, unknown>[];

describe('transactions projection', () => {
  it('when a bet is placed and rolled back, then two rows with signed amounts, balances and originalId', () => {
    const w = new WalletScript();
    const deposit = w.depositCompleted(5, 'd1', 'BTC', '1.5', '150');
    const placed = w.betPlaced(5, 'b1', 'BTC', '0.25', '25');
    const events = recorded([deposit, placed, w.betRolledBack(5, 'b1', 'BTC', '0.25', placed.transactionId)]);
    const [insert, ...rest] = transactionsProjection.project(events);
    expect(rest).toEqual([]);
    // The rows and the list's counts in one statement: the counts' keys come from the rows it inserted.
    expect(insert?.text).toMatch(
      /^WITH r AS \(INSERT INTO transactions SELECT .* RETURNING \*\) INSERT INTO transactions_counts .* FROM r,/,
    );
    // A bulk replay inserts the same rows without the counts (recounted at its end).
    expect(insert?.derived).toBe(true);
    expect(insert?.underived).toEqual({ text: expect.stringMatching(/^INSERT INTO transactions SELECT/), values: insert?.values });
    const [credit, bet, rollback] = rows(insert);
    expect(credit).toMatchObject({
      type: 'DEPOSIT',
      amount: '1.5',
      before_balance: '0',
      after_balance: '1.5',
      reference_id: 'd1',
      user_id: 5,
    });
    expect(bet).toMatchObject({ type: 'BET', amount: '-0.25', before_balance: '1.5', after_balance: '1.25', original_id: null });
    expect(rollback).toMatchObject({
      type: 'ROLLBACK_BET',
      amount: '0.25',
      before_balance: '1.25',
      after_balance: '1.5',
      original_id: placed.transactionId,
    });
    expect(rollback?.event_id).toBe(events[2]?.id);
    expect(rollback?.position).toBe('100/3');
  });

  it('when an event moves no user money (withdrawal completed, zero payout), then no row', () => {
    const w = new WalletScript();
    const setup = [
      w.depositCompleted(1, 'd', 'USDT', '10', '10'),
      w.betPlaced(1, 'b', 'USDT', '1', '1'),
      w.withdrawalRequested(1, 'w', 'USDT', '2', '2'),
    ];
    const events = recorded([
      ...setup,
      w.betSettled(1, 'b', 'USDT', '0', '0', '0'),
      w.withdrawalApproved(1, 'w'),
      w.withdrawalCompleted(1, 'w', 'USDT', '2'),
    ]);
    const types = rows(transactionsProjection.project(events)[0]).map((r) => r.type);
    expect(types).toEqual(['DEPOSIT', 'BET', 'WITHDRAW']);
  });

  it('when an admin acts, then admin_user_id is recorded', () => {
    const w = new WalletScript();
    const events = recorded([
      w.tip(2, 9, 'add', 'ETH', '0.000000000000000001', '0', 42),
      w.balanceSet(2, 'ETH', '3', 43),
      w.prize(2, 'lbu-1', 'ETH', '1', '3000', 44),
    ]);
    expect(rows(transactionsProjection.project(events)[0]).map((r) => [r.type, r.admin_user_id, r.amount, r.before_balance])).toEqual([
      ['ADMIN_TIP', 42, '0.000000000000000001', '0'],
      ['BALANCE_SET', 43, '2.999999999999999999', '0.000000000000000001'],
      ['LEADERBOARD_PRIZE', 44, '1', '3'],
    ]);
  });
});

describe('balance projections', () => {
  it('when a batch changes one wallet several times, then one upsert row per user and currency with the last balance', () => {
    const w = new WalletScript();
    const events = recorded([
      w.depositCompleted(1, 'd', 'BTC', '1', '1'),
      w.betPlaced(1, 'b', 'BTC', '0.3', '1'),
      w.depositCompleted(2, 'e', 'BTC', '2', '2'),
      w.betSettled(1, 'b', 'BTC', '0.6', '2', '2'),
    ]);
    const [upsert] = walletBalancesProjection.project(events);
    expect(upsert?.text).toMatch(/ON CONFLICT \(user_id, currency_id\)/);
    expect(rows(upsert).map((r) => [r.user_id, r.balance])).toEqual([
      [1, '1.3'],
      [2, '2'],
    ]);
  });

  it('when legs are summed per account, then the trial balance is exactly zero per currency', () => {
    const w = new WalletScript();
    const events = recorded([
      w.depositCompleted(1, 'd', 'ETH', '0.7', '1'),
      w.withdrawalRequested(1, 'w', 'ETH', '0.3', '1'),
      w.withdrawalCompleted(1, 'w', 'ETH', '0.3'),
    ]);
    const balances = Object.fromEntries(rows(accountBalancesProjection.project(events)[0]).map((r) => [r.account, r.balance]));
    expect(balances).toEqual({ 'house:deposits': '-0.7', 'user:1': '0.4', 'house:withdrawals-held': '0', 'house:withdrawals': '0.3' });
  });
});

describe('entity projections', () => {
  it('when a deposit is created and completed in one batch, then one full row is inserted and nothing patched', () => {
    const w = new WalletScript();
    const events = recorded([
      w.depositRequested(3, 'd', 'BTC', '1', '100'),
      w.depositConfirmed(3, 'd', '0xabc'),
      w.depositCompleted(3, 'd', 'BTC', '1', '100'),
    ]);
    const statements = depositsProjection.project(events);
    expect(statements.map((s) => s.text.split(' ').slice(0, 6).join(' '))).toEqual(['WITH r AS (INSERT INTO deposits']);
    expect(statements[0]?.text).toMatch(/RETURNING \*\) INSERT INTO deposits_counts/);
    expect(rows(statements[0])).toEqual([
      expect.objectContaining({
        id: 'd',
        status: 'COMPLETE',
        tx_hash: '0xd',
        confirmed_at: events[1]?.data.at,
        completed_at: events[2]?.data.at,
      }),
    ]);
  });

  it('when a deposit created earlier changes, then one merged patch keyed by id', () => {
    const w = new WalletScript();
    w.depositRequested(3, 'd', 'BTC', '1', '100');
    const events = recorded([w.depositConfirmed(3, 'd'), w.depositFailed(3, 'd', 'late')]);
    const [leave, patch, join, ...rest] = depositsProjection.project(events);
    // The changed row leaves its old count keys before the patch (a key left at zero goes) and joins its new ones after it.
    expect([leave?.values, join?.values, rest]).toEqual([[['d']], [['d']], []]);
    expect(leave?.text).toMatch(/DELETE FROM deposits_counts AS c USING d WHERE c.key = d.k AND c.n = d.n$/);
    expect(join?.text).toMatch(/^INSERT INTO deposits_counts/);
    expect(patch?.text).toMatch(/^UPDATE deposits AS t SET/);
    expect(rows(patch)).toEqual([
      { id: 'd', status: 'FAILED', confirmed_at: events[0]?.data.at, failed_reason: 'late', updated_at: events[1]?.data.at },
    ]);
  });
});

describe('user stats projection', () => {
  it('when bets and withdrawals are opened and closed in one batch, then one accumulate from the outcome events alone', () => {
    const w = new WalletScript();
    const events = recorded([
      w.depositCompleted(1, 'd', 'DBC', '10', '10'),
      w.betPlaced(1, 'b', 'DBC', '2', '2'),
      w.betSettled(1, 'b', 'DBC', '3', '3', '1.5'),
      w.betPlaced(1, 'b2', 'DBC', '1', '1'),
      w.betRolledBack(1, 'b2', 'DBC', '1', 'tx'),
      w.withdrawalRequested(1, 'w', 'DBC', '4', '4'),
      w.withdrawalCompleted(1, 'w', 'DBC', '4'),
    ]);
    const statements = userStatsUsdProjection.project(events);
    expect(statements).toHaveLength(1);
    const [accumulate] = statements;
    expect(accumulate?.text).toMatch(/INSERT INTO user_stats_usd/);
    expect(rows(accumulate)).toEqual([
      {
        user_id: 1,
        wagered: '0',
        payouts: '0',
        bets: 0,
        deposits: '10',
        withdraws: '0',
        deposit_at: events[0]?.data.at,
        wagered_at: null,
        at: events[0]?.data.at,
      },
      {
        user_id: 1,
        wagered: '2',
        payouts: '3',
        bets: 1,
        deposits: '0',
        withdraws: '0',
        deposit_at: null,
        wagered_at: events[1]?.data.at,
        at: events[2]?.data.at,
      },
      {
        user_id: 1,
        wagered: '0',
        payouts: '0',
        bets: 0,
        deposits: '0',
        withdraws: '4',
        deposit_at: null,
        wagered_at: null,
        at: events[6]?.data.at,
      },
    ]);
  });
});

describe('every projection', () => {
  it('when given no events, then no statements', () => {
    for (const p of allProjections) expect(p.project([])).toEqual([]);
  });

  it('has a unique name and owns distinct tables', () => {
    expect(new Set(allProjections.map((p) => p.name)).size).toBe(allProjections.length);
    const tables = allProjections.flatMap((p) => p.tables);
    expect(new Set(tables).size).toBe(tables.length);
  });
});
