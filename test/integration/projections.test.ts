import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createTestDb, type TestDb } from '../support/db.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { migrateEventStore } from '../../src/infra/event-store/postgres/postgres.migration.js';
import type { EventStore, Position } from '../../src/infra/event-store/event-store.port.js';
import { allProjections } from '../../src/read-models/all-projections.js';
import { startProjector } from '../../src/projections/projection-runner.js';
import { rebuildProjections } from '../../src/projections/rebuild.js';
import { WalletScript, type Scripted } from '../unit/projections/wallet-fixtures.js';
import { migrateNonCore } from '../../src/schema.js';

const TABLES = allProjections.flatMap((p) => p.tables);
const dump = async (pool: pg.Pool): Promise<Record<string, unknown[]>> => {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) out[t] = (await pool.query(`SELECT * FROM ${t} ORDER BY 1, 2, ${t}::text`)).rows;
  out.checkpoints = (await pool.query('SELECT name, version, position FROM projection_checkpoints ORDER BY name')).rows;
  return out;
};

/** Three users: BTC bets and withdrawals in every outcome, USDT admin operations, an ETH deposit. */
const scenario = (w: WalletScript): Scripted[] => {
  const s: Scripted[] = [
    w.depositRequested(1, 'd1', 'BTC', '1.5', '150'),
    w.depositConfirmed(1, 'd1', '0xd1'),
    w.depositCompleted(1, 'd1', 'BTC', '1.5', '150'),
  ];
  s.push(w.betPlaced(1, 'b1', 'BTC', '0.5', '50'), w.betSettled(1, 'b1', 'BTC', '1', '100', '2'));
  const b2 = w.betPlaced(1, 'b2', 'BTC', '0.2', '20');
  s.push(b2, w.betRolledBack(1, 'b2', 'BTC', '0.2', b2.transactionId));
  const b3 = w.betPlaced(1, 'b3', 'BTC', '0.1', '10');
  s.push(b3, w.betErrored(1, 'b3', 'BTC', '0.1', b3.transactionId, 'rng timeout'));
  s.push(w.betPlaced(1, 'b4', 'BTC', '0.1', '10'), w.betSettled(1, 'b4', 'BTC', '0', '0', '0'));
  s.push(w.depositRequested(2, 'd2', 'USDT', '40', '40'), w.depositFailed(2, 'd2', 'expired'));
  s.push(w.tip(2, 1, 'add', 'USDT', '100', '100', 900), w.tip(2, 2, 'deduct', 'USDT', '30.5', '30.5', 901));
  s.push(
    w.withdrawalRequested(1, 'w1', 'BTC', '0.3', '30'),
    w.withdrawalApproved(1, 'w1', 900),
    w.withdrawalCompleted(1, 'w1', 'BTC', '0.3'),
  );
  s.push(w.withdrawalRequested(1, 'w2', 'BTC', '0.2', '20'), w.withdrawalRejected(1, 'w2', 'BTC', '0.2', 'kyc missing', 901));
  s.push(
    w.withdrawalRequested(1, 'w3', 'BTC', '0.1', '10'),
    w.withdrawalApproved(1, 'w3', 900),
    w.withdrawalFailed(1, 'w3', 'node down'),
    w.withdrawalRetried(1, 'w3', 901),
  );
  s.push(w.balanceSet(2, 'USDT', '500', 902), w.prize(2, 'lbu-1', 'USDT', '25', '25', 903));
  s.push(w.depositRequested(3, 'd3', 'ETH', '2', '6000'), w.depositCompleted(3, 'd3', 'ETH', '2', '6000'));
  return s;
};

const appendAll = async (store: EventStore, items: readonly Scripted[]): Promise<Position> => {
  let last: Position | undefined;
  for (const { streamId, event } of items) last = (await store.append({ streamId, events: [event], expectedRevision: 'any' })).position;
  return last!;
};

describe('projections on PostgreSQL', () => {
  let db: TestDb;
  let pool: pg.Pool;
  let store: EventStore;
  const w = new WalletScript();
  let events: Scripted[];

  beforeAll(async () => {
    db = await createTestDb('projections');
    pool = db.pool();
    await migrateEventStore(pool);
    await migrateNonCore(pool);
    store = createPostgresEventStore({ pool, pollIntervalMs: 50 });
    events = scenario(w);
    const head = await appendAll(store, events);
    const projector = startProjector({ store, pool, projections: allProjections, batchSize: 5 });
    await projector.waitFor(head);
    await projector.stop();
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  const q = async (sql: string): Promise<unknown[]> => (await pool.query(sql)).rows;

  it('when wallet events are projected, then the transactions log has signed amounts, before/after balances and originalId', async () => {
    const rows = await q(`SELECT type, amount, before_balance, after_balance, original_id, admin_user_id, reference_id
      FROM transactions WHERE user_id = 1 ORDER BY position_commit, position_prepare`);
    const b2 = events.find((e) => e.event.type === 'BetPlaced' && e.event.data.betId === 'b2')!.event.data.transactionId;
    const b3 = events.find((e) => e.event.type === 'BetPlaced' && e.event.data.betId === 'b3')!.event.data.transactionId;
    expect(rows).toEqual([
      {
        type: 'DEPOSIT',
        amount: '1.5',
        before_balance: '0',
        after_balance: '1.5',
        original_id: null,
        admin_user_id: null,
        reference_id: 'd1',
      },
      {
        type: 'BET',
        amount: '-0.5',
        before_balance: '1.5',
        after_balance: '1',
        original_id: null,
        admin_user_id: null,
        reference_id: 'b1',
      },
      {
        type: 'BET_PAYOUT',
        amount: '1',
        before_balance: '1',
        after_balance: '2',
        original_id: null,
        admin_user_id: null,
        reference_id: 'b1',
      },
      {
        type: 'BET',
        amount: '-0.2',
        before_balance: '2',
        after_balance: '1.8',
        original_id: null,
        admin_user_id: null,
        reference_id: 'b2',
      },
      {
        type: 'ROLLBACK_BET',
        amount: '0.2',
        before_balance: '1.8',
        after_balance: '2',
        original_id: b2,
        admin_user_id: null,
        reference_id: 'b2',
      },
      {
        type: 'BET',
        amount: '-0.1',
        before_balance: '2',
        after_balance: '1.9',
        original_id: null,
        admin_user_id: null,
        reference_id: 'b3',
      },
      {
        type: 'BET_ERROR_REFUND',
        amount: '0.1',
        before_balance: '1.9',
        after_balance: '2',
        original_id: b3,
        admin_user_id: null,
        reference_id: 'b3',
      },
      {
        type: 'BET',
        amount: '-0.1',
        before_balance: '2',
        after_balance: '1.9',
        original_id: null,
        admin_user_id: null,
        reference_id: 'b4',
      },
      {
        type: 'WITHDRAW',
        amount: '-0.3',
        before_balance: '1.9',
        after_balance: '1.6',
        original_id: null,
        admin_user_id: null,
        reference_id: 'w1',
      },
      {
        type: 'WITHDRAW',
        amount: '-0.2',
        before_balance: '1.6',
        after_balance: '1.4',
        original_id: null,
        admin_user_id: null,
        reference_id: 'w2',
      },
      {
        type: 'WITHDRAW_REFUND',
        amount: '0.2',
        before_balance: '1.4',
        after_balance: '1.6',
        original_id: null,
        admin_user_id: '901',
        reference_id: 'w2',
      },
      {
        type: 'WITHDRAW',
        amount: '-0.1',
        before_balance: '1.6',
        after_balance: '1.5',
        original_id: null,
        admin_user_id: null,
        reference_id: 'w3',
      },
    ]);
    expect(
      await q(`SELECT type, amount, before_balance, after_balance, admin_user_id FROM transactions WHERE user_id = 2 ORDER BY created_at`),
    ).toEqual([
      { type: 'ADMIN_TIP', amount: '100', before_balance: '0', after_balance: '100', admin_user_id: '900' },
      { type: 'ADMIN_DEDUCT', amount: '-30.5', before_balance: '100', after_balance: '69.5', admin_user_id: '901' },
      { type: 'BALANCE_SET', amount: '430.5', before_balance: '69.5', after_balance: '500', admin_user_id: '902' },
      { type: 'LEADERBOARD_PRIZE', amount: '25', before_balance: '500', after_balance: '525', admin_user_id: '903' },
    ]);
  });

  it('when projected, then wallet balances match the fixture and the trial balance sums to zero per currency', async () => {
    expect(await q('SELECT user_id, currency_id, balance FROM wallet_balances ORDER BY user_id')).toEqual([
      { user_id: '1', currency_id: 'BTC', balance: w.balance(1, 'BTC') },
      { user_id: '2', currency_id: 'USDT', balance: '525' },
      { user_id: '3', currency_id: 'ETH', balance: '2' },
    ]);
    expect(w.balance(1, 'BTC')).toBe('1.5');
    expect(await q('SELECT currency_id, trim_scale(sum(balance))::text AS total FROM account_balances GROUP BY 1 ORDER BY 1')).toEqual([
      { currency_id: 'BTC', total: '0' },
      { currency_id: 'ETH', total: '0' },
      { currency_id: 'USDT', total: '0' },
    ]);
    expect(await q(`SELECT account, balance FROM account_balances WHERE currency_id = 'BTC' ORDER BY account`)).toEqual([
      { account: 'house:bets', balance: '0.6' },
      { account: 'house:deposits', balance: '-1.5' },
      { account: 'house:payouts', balance: '-1' },
      { account: 'house:withdrawals', balance: '0.3' },
      { account: 'house:withdrawals-held', balance: '0.1' },
      { account: 'user:1', balance: '1.5' },
    ]);
  });

  it('when projected, then deposits, withdrawals, bets and tips carry their final state', async () => {
    expect(
      await q(
        'SELECT id, status, tx_hash, failed_reason, transaction_id IS NOT NULL AS credited, confirmed_at IS NOT NULL AS confirmed FROM deposits ORDER BY id',
      ),
    ).toEqual([
      { id: 'd1', status: 'COMPLETE', tx_hash: '0xd1', failed_reason: null, credited: true, confirmed: true },
      { id: 'd2', status: 'FAILED', tx_hash: null, failed_reason: 'expired', credited: false, confirmed: false },
      { id: 'd3', status: 'COMPLETE', tx_hash: '0xd3', failed_reason: null, credited: true, confirmed: false },
    ]);
    expect(
      await q('SELECT id, status, tx_hash, reject_reason, failed_reason, confirmed_by_user_id, usd_amount FROM withdrawals ORDER BY id'),
    ).toEqual([
      {
        id: 'w1',
        status: 'COMPLETE',
        tx_hash: '0xww1',
        reject_reason: null,
        failed_reason: null,
        confirmed_by_user_id: '900',
        usd_amount: '30',
      },
      {
        id: 'w2',
        status: 'DENIED',
        tx_hash: null,
        reject_reason: 'kyc missing',
        failed_reason: null,
        confirmed_by_user_id: null,
        usd_amount: '20',
      },
      {
        id: 'w3',
        status: 'CONFIRMED',
        tx_hash: null,
        reject_reason: null,
        failed_reason: null,
        confirmed_by_user_id: '901',
        usd_amount: '10',
      },
    ]);
    expect(
      await q(
        'SELECT id, status, payout, usd_payout, multiplier, error_details, game_slug, settled_at IS NOT NULL AS settled FROM bets ORDER BY id',
      ),
    ).toEqual([
      {
        id: 'b1',
        status: 'SETTLED',
        payout: '1',
        usd_payout: '100',
        multiplier: '2',
        error_details: null,
        game_slug: 'dice',
        settled: true,
      },
      {
        id: 'b2',
        status: 'ROLLBACK',
        payout: '0',
        usd_payout: '0',
        multiplier: null,
        error_details: null,
        game_slug: 'dice',
        settled: false,
      },
      {
        id: 'b3',
        status: 'ERROR',
        payout: '0',
        usd_payout: '0',
        multiplier: null,
        error_details: 'rng timeout',
        game_slug: 'dice',
        settled: false,
      },
      { id: 'b4', status: 'SETTLED', payout: '0', usd_payout: '0', multiplier: '0', error_details: null, game_slug: 'dice', settled: true },
    ]);
    expect(await q('SELECT id, type, amount, usd_amount, sender_user_id, recipient_user_id, tag FROM admin_tips ORDER BY id')).toEqual([
      { id: 1, type: 'ADD_BALANCE', amount: '100', usd_amount: '100', sender_user_id: '900', recipient_user_id: '2', tag: 'TESTING' },
      { id: 2, type: 'DEDUCT_BALANCE', amount: '30.5', usd_amount: '30.5', sender_user_id: '901', recipient_user_id: '2', tag: 'TESTING' },
    ]);
  });

  it('when projected, then USD stats count settled bets and completed deposits and withdrawals only', async () => {
    const b4 = events.find((e) => e.event.type === 'BetPlaced' && e.event.data.betId === 'b4')!.event.data.at as string;
    const d1 = events.find((e) => e.event.type === 'DepositCompleted' && e.event.data.depositId === 'd1')!.event.data.at as string;
    expect(
      await q(`SELECT user_id, total_wagered, total_payouts, total_deposits, total_withdraws, ggr, ltv, total_bets,
      first_deposit_at, last_deposit_at, last_wagered_at FROM user_stats_usd ORDER BY user_id`),
    ).toEqual([
      {
        user_id: '1',
        total_wagered: '60',
        total_payouts: '100',
        total_deposits: '150',
        total_withdraws: '30',
        ggr: '-40',
        ltv: '120',
        total_bets: 2,
        first_deposit_at: new Date(d1),
        last_deposit_at: new Date(d1),
        last_wagered_at: new Date(b4),
      },
      expect.objectContaining({ user_id: '3', total_deposits: '6000', ltv: '6000', total_bets: 0, last_wagered_at: null }),
    ]);
    expect(
      await q(`SELECT to_regclass('user_stats_pending') AS t, to_regclass('rakeback_pending') AS r, to_regclass('affiliate_pending') AS a`),
    ).toEqual([{ t: null, r: null, a: null }]);
  });

  it('when two projectors run at once, then each event is applied exactly once', async () => {
    const more = [
      w.depositRequested(4, 'd4', 'SOL', '3', '300'),
      w.depositCompleted(4, 'd4', 'SOL', '3', '300'),
      w.betPlaced(4, 'b6', 'SOL', '1', '100'),
      w.betSettled(4, 'b6', 'SOL', '2.5', '250', '2.5'),
      w.tip(4, 3, 'add', 'SOL', '0.000000001', '0.0000001'),
    ];
    const [p1, p2] = [
      startProjector({ store, pool, projections: allProjections, batchSize: 2 }),
      startProjector({ store, pool: db.pool(), projections: allProjections, batchSize: 3 }),
    ];
    const head = await appendAll(store, more);
    await Promise.all([p1.waitFor(head), p2.waitFor(head)]);
    await Promise.all([p1.stop(), p2.stop()]);
    expect(await q(`SELECT balance FROM wallet_balances WHERE user_id = 4`)).toEqual([{ balance: '4.500000001' }]);
    expect(await q(`SELECT count(*)::int AS n FROM transactions WHERE user_id = 4`)).toEqual([{ n: 4 }]);
    expect(await q(`SELECT total_wagered, total_payouts, total_deposits FROM user_stats_usd WHERE user_id = 4`)).toEqual([
      { total_wagered: '100', total_payouts: '250', total_deposits: '300' },
    ]);
  });

  it('when the read models are rebuilt from zero, then every table equals the live one', async () => {
    const live = await dump(pool);
    const result = await rebuildProjections({ store, pool, projections: allProjections, batchSize: 7 });
    expect(result.events).toBe(events.length + 5);
    expect(await dump(pool)).toEqual(live);
  });
});
