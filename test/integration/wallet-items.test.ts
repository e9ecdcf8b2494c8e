import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { WALLET_ITEM_KEYS } from '../../src/commands/wallet-items.js';
import { decodeWalletSnapshot, encodeWalletSnapshot } from '../../src/commands/wallet-snapshot.js';
import { evolveOpen, itemKeysOfEvent } from '../../src/domain/wallet/wallet.items.js';
import { walletStream, type WalletEvent } from '../../src/domain/wallet/wallet.events.js';
import { initialWalletState } from '../../src/domain/wallet/wallet.state.js';
import type { EventStore } from '../../src/infra/event-store/event-store.port.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { readStreamByKeysQuery } from '../../src/infra/event-store/postgres/postgres.reads.js';
import { verifySnapshots } from '../../src/audit/verify.snapshots.js';
import { createLedgerEnv, fundWallet, type LedgerEnv } from '../support/ledger-env.js';
import { must as right } from '../support/realtime-ledger.js';
import { withStoreOverrides } from '../support/store-overrides.js';

const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } };
const SNAPSHOT_EVERY = 10;

/** A store that counts the events its stream reads return: what a cold wallet folds. */
const counting = (store: EventStore): EventStore & { folded: () => number } => {
  let folded = 0;
  const readStream: EventStore['readStream'] = async (...args) => {
    const events = await store.readStream(...args);
    folded += events.length;
    return events;
  };
  return Object.assign(withStoreOverrides(store, { readStream }), { folded: () => folded });
};

describe('a wallet keeps its balances and open items; final items are found by key, and a cold wallet starts at its snapshot', () => {
  let env: LedgerEnv;
  let ledger: ReturnType<typeof createLedger>;
  const stores: EventStore[] = [];
  beforeAll(async () => {
    env = await createLedgerEnv('wallet-items');
    ledger = createLedger({ store: env.store, pool: env.pool, walletSnapshotEvery: SNAPSHOT_EVERY });
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await env.close();
  });

  /** Another process: its own store and ledger, nothing cached. */
  const coldLedger = () => {
    const store = counting(createPostgresEventStore({ pool: env.pool, pollIntervalMs: 50 }));
    stores.push(store);
    return { store, ledger: createLedger({ store, pool: env.pool, walletSnapshotEvery: SNAPSHOT_EVERY }) };
  };
  const bet = (l: ReturnType<typeof createLedger>, userId: number, id: string, amount = '1') =>
    l.placeBet({ id, userId, roundId: `r-${id}`, gameId: 7, gameIdentity: game, currencyId: 'USDT', amount });
  const balance = async (l: ReturnType<typeof createLedger>, userId: number) =>
    (await l.balances(userId)).find((b) => b.currencyId === 'USDT')?.balance;

  it('when most of a wallet’s bets are settled, then it holds only the open ones, and a retry of a settled one answers its first answer without a second debit', async () => {
    const u = 6101;
    await fundWallet(ledger, u, '100');
    for (let n = 0; n < 30; n += 1) right(await bet(ledger, u, `it-${u}-${n}`));
    for (let n = 0; n < 25; n += 1) right(await ledger.settleBet(`it-${u}-${n}`, { payout: n % 2 === 0 ? '2' : '0' }));
    const state = ledger.internals.handler.peek(u)!;
    expect(state.bets.size).toBe(5);
    expect(state.deposits.size).toBe(0);
    expect(state.operations.size).toBe(0);
    expect(await balance(ledger, u)).toBe('96'); // 100 - 30 + 13 payouts of 2

    for (const l of [ledger, coldLedger().ledger]) {
      const again = right(await bet(l, u, `it-${u}-0`));
      expect(again.created).toBe(false);
      expect(again.bet).toMatchObject({ id: `it-${u}-0`, status: 'SETTLED', payout: '2', amount: '1' });
      const conflicting = await bet(l, u, `it-${u}-1`, '3');
      expect(isLeft(conflicting) && conflicting.left._tag).toBe('IdempotencyConflict');
      const settledAgain = right(await l.settleBet(`it-${u}-0`, { payout: '2' }));
      expect(settledAgain).toMatchObject({ status: 'SETTLED', payout: '2' });
      const otherPayout = await l.settleBet(`it-${u}-0`, { payout: '5' });
      expect(isLeft(otherPayout) && otherPayout.left._tag).toBe('BetInvalidState');
      const rollback = await l.rollbackBet(`it-${u}-2`);
      expect(isLeft(rollback) && rollback.left._tag).toBe('BetInvalidState');
      expect(await balance(l, u)).toBe('96');
    }
    // The open bets still settle, on the warm wallet that held them through all of it.
    right(await ledger.settleBet(`it-${u}-29`, { payout: '4' }));
    expect(await balance(ledger, u)).toBe('100');
    expect(ledger.internals.handler.peek(u)!.bets.size).toBe(4);
  });

  it('when a final deposit, withdrawal, tip and claim are asked for again by their keys, then each answers as first and nothing moves twice', async () => {
    const u = 6102;
    const withdraw = (l: ReturnType<typeof createLedger>, amount: string) =>
      l.requestWithdrawal({
        userId: u,
        currencyId: 'USDT',
        networkId: 'ETH',
        providerId: 'TEST',
        amount,
        recipientAddress: '0xabc',
        operationKey: 'wd-key-6102',
      });
    await fundWallet(ledger, u, '50');
    const w = right(await withdraw(ledger, '10'));
    right(await ledger.approveWithdrawal(w.withdrawal.id, 1));
    right(await ledger.completeWithdrawal(w.withdrawal.id, { txHash: '0xfeed' }));
    const tip = right(
      await ledger.tip({ recipientUserId: u, adminUserId: 1, currencyId: 'USDT', amount: '5', notes: 'n', operationKey: 'tip-6102' }),
    );
    const claim = right(await ledger.claimAffiliateCommission({ claimId: 'claim-6102', userId: u, currencyId: 'USDT', amount: '3' }));
    for (let n = 0; n < 12; n += 1) right(await ledger.settleBet(right(await bet(ledger, u, `dw-${u}-${n}`)).bet.id, { payout: '1' }));
    const state = ledger.internals.handler.peek(u)!;
    expect([state.bets.size, state.deposits.size, state.withdrawals.size, state.operations.size, state.claims.size]).toEqual([
      0, 0, 0, 0, 0,
    ]);
    expect(await balance(ledger, u)).toBe('48');

    for (const l of [ledger, coldLedger().ledger]) {
      const wAgain = right(await withdraw(l, '10'));
      expect(wAgain).toMatchObject({ created: false, withdrawal: { id: w.withdrawal.id, status: 'COMPLETE', txHash: '0xfeed' } });
      const wOther = await withdraw(l, '11');
      expect(isLeft(wOther) && wOther.left._tag).toBe('IdempotencyConflict');
      expect(right(await l.completeWithdrawal(w.withdrawal.id, { txHash: '0xfeed' })).status).toBe('COMPLETE');
      const approveAgain = await l.approveWithdrawal(w.withdrawal.id, 1);
      expect(isLeft(approveAgain) && approveAgain.left._tag).toBe('WithdrawalInvalidState');

      const depAgain = right(
        await l.requestDeposit({
          externalId: `fund-${u}`,
          userId: u,
          providerId: 'TEST',
          networkId: 'ETH',
          currencyId: 'USDT',
          amount: '50',
        }),
      );
      expect(depAgain).toMatchObject({ created: false, deposit: { status: 'COMPLETE', amount: '50' } });
      expect(right(await l.completeDeposit(depAgain.deposit.id, {})).status).toBe('COMPLETE');
      const confirmLate = await l.confirmDeposit(depAgain.deposit.id, {});
      expect(isLeft(confirmLate) && confirmLate.left._tag).toBe('DepositInvalidState');

      const tipAgain = right(
        await l.tip({ recipientUserId: u, adminUserId: 1, currencyId: 'USDT', amount: '5', notes: 'n', operationKey: 'tip-6102' }),
      );
      expect(tipAgain.id).toBe(tip.id);
      const claimAgain = right(await l.claimAffiliateCommission({ claimId: 'claim-6102', userId: u, currencyId: 'USDT', amount: '3' }));
      expect(claimAgain).toMatchObject({
        created: false,
        claim: { transactionId: claim.claim.transactionId, balance: claim.claim.balance },
      });
      expect(await balance(l, u)).toBe('48');
    }
  });

  it('when a wallet passes the snapshot bound, then its snapshot equals the fold it replaces and a cold wallet folds only the events after it', async () => {
    const u = 6103;
    await fundWallet(ledger, u, '100');
    for (let n = 0; n < 40; n += 1) {
      right(await bet(ledger, u, `sn-${u}-${n}`));
      if (n % 4 !== 0) right(await ledger.settleBet(`sn-${u}-${n}`, { payout: '1' }));
    }
    await expect.poll(async () => (await env.store.readSnapshot(walletStream(u)))?.revision ?? -1n).toBeGreaterThanOrEqual(60n);
    const snapshot = (await env.store.readSnapshot(walletStream(u)))!;
    const events = await env.store.readStream(walletStream(u));
    const fold = events
      .filter((e) => e.revision <= snapshot.revision)
      .reduce((s, e) => evolveOpen(s, { type: e.type, data: e.data } as WalletEvent), initialWalletState(u));
    expect(snapshot.data).toEqual(encodeWalletSnapshot(fold));
    expect(decodeWalletSnapshot(u, snapshot.data)!.balances.get('USDT')).toBe(fold.balances.get('USDT'));
    expect(decodeWalletSnapshot(u + 1, snapshot.data)).toBeUndefined();

    const cold = coldLedger();
    const again = right(await bet(cold.ledger, u, `sn-${u}-1`));
    expect(again).toMatchObject({ created: false, bet: { status: 'SETTLED' } });
    expect(cold.store.folded()).toBe(events.length - 1 - Number(snapshot.revision));
    expect(await balance(cold.ledger, u)).toBe(await balance(ledger, u));
    expect(cold.ledger.internals.handler.peek(u)!.bets.size).toBe(10);
  });

  it('when verify checks the snapshots, then each equals its fold; the next run folds only newer events; an edited snapshot or verified copy is reported', async () => {
    const key = Buffer.alloc(32, 7);
    const u = 6103;
    const counted = counting(env.store);
    expect(await verifySnapshots({ pool: env.pool, store: counted, key })).toEqual([]);
    const firstRead = counted.folded();
    expect(firstRead).toBeGreaterThanOrEqual(60);
    expect(await verifySnapshots({ pool: env.pool, store: counted, key })).toEqual([]);
    expect(counted.folded()).toBe(firstRead); // nothing new: every check starts where the last one ended

    await env.pool.query(`UPDATE stream_snapshots SET data = jsonb_set(data, '{balances,0,1,$n}', '"999000000"') WHERE stream_id = $1`, [
      walletStream(u),
    ]);
    const edited = await verifySnapshots({ pool: env.pool, store: env.store, key });
    expect(edited.map((d) => [d.kind, d.streamId])).toEqual([['snapshot', walletStream(u)]]);

    await env.pool.query(`UPDATE snapshot_checks SET revision = revision - 1 WHERE stream_id = $1`, [walletStream(u)]);
    const forged = await verifySnapshots({ pool: env.pool, store: env.store, key });
    expect(forged.map((d) => d.detail)).toEqual([
      'the verified copy of an earlier snapshot was edited: its MAC does not match',
      'the snapshot is not the fold of the stream up to its revision',
    ]);
  });

  it('when the item keys are computed by PostgreSQL and by the domain, then they agree for every wallet event, and the lookup reads through their two indexes', async () => {
    const u = 6105;
    await fundWallet(ledger, u, '20');
    right(await bet(ledger, u, 'k-6105-1'));
    right(await ledger.rollbackBet('k-6105-1'));
    right(await bet(ledger, u, 'k-6105-2'));
    right(await ledger.errorBet('k-6105-2', { errorDetails: 'game failed' }));
    right(await ledger.setBalance({ userId: u, adminUserId: 1, currencyId: 'USDT', balance: '30', operationKey: 'set-6105' }));
    right(await ledger.deductBalance({ recipientUserId: u, adminUserId: 1, currencyId: 'USDT', amount: '1', notes: 'n' }));
    right(
      await ledger.creditPrize({
        userId: u,
        adminUserId: 1,
        leaderboardId: 'lb',
        leaderboardUserId: 'lbu',
        currencyId: 'USDT',
        amount: '1',
      }),
    );
    const d = right(
      await ledger.requestDeposit({ externalId: 'x-6105', userId: u, providerId: 'P', networkId: 'ETH', currencyId: 'USDT', amount: '1' }),
    );
    right(await ledger.confirmDeposit(d.deposit.id, {}));
    right(await ledger.failDeposit(d.deposit.id, { reason: 'expired' }));
    const w = right(
      await ledger.requestWithdrawal({
        userId: u,
        currencyId: 'USDT',
        networkId: 'ETH',
        providerId: 'TEST',
        amount: '1',
        recipientAddress: '0x1',
      }),
    );
    right(await ledger.rejectWithdrawal(w.withdrawal.id, 1, 'no'));
    const { rows } = await env.pool.query<{
      type: string;
      data: Record<string, unknown>;
      primary_key: string | null;
      second_key: string | null;
    }>(
      `SELECT type, data, (${WALLET_ITEM_KEYS.primarySql}) AS primary_key,
         CASE WHEN type = ANY($1::text[]) THEN (${WALLET_ITEM_KEYS.secondarySql}) END AS second_key
       FROM events WHERE stream_id LIKE 'wallet-%'`,
      [WALLET_ITEM_KEYS.secondaryTypes],
    );
    expect(new Set(rows.map((r) => r.type)).size).toBeGreaterThanOrEqual(17);
    for (const r of rows) {
      expect([r.primary_key, r.second_key].filter((k) => k !== null)).toEqual(itemKeysOfEvent(r.type, r.data));
    }
    const client = await env.pool.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const q = readStreamByKeysQuery(walletStream(6101), ['bet:it-6101-0', 'op:x'], { rule: WALLET_ITEM_KEYS });
      const plan = (await client.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN ${q.text}`, values: q.values })).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      expect(plan).toContain('events_item_key_idx');
      expect(plan).toContain('events_item_second_key_idx');
    } finally {
      client.release();
    }
  });

  it('when the store cannot claim keys in its append (as KurrentDB), then the claim before it tells a reused bet id, and a retry of a settled bet answers as first', async () => {
    const u = 6106;
    const outside = withStoreOverrides(env.store, { claimsKeys: false });
    const l = createLedger({ store: outside, pool: env.pool });
    await fundWallet(l, u, '10');
    right(await bet(l, u, 'kd-6106-1'));
    right(await l.settleBet('kd-6106-1', { payout: '3' }));
    expect(l.internals.handler.peek(u)!.bets.size).toBe(0);
    for (const again of [l, createLedger({ store: outside, pool: env.pool })]) {
      const retry = right(await bet(again, u, 'kd-6106-1'));
      expect(retry).toMatchObject({ created: false, bet: { status: 'SETTLED', payout: '3' } });
    }
    await fundWallet(l, u + 1, '10');
    const taken = await bet(l, u + 1, 'kd-6106-1');
    expect(isLeft(taken) && taken.left._tag).toBe('IdempotencyConflict');
    expect(await balance(l, u)).toBe('12');
  });

  it('when a snapshot is asked for (as at a close), then it is written at the wallet’s head and only if events came after the last one', async () => {
    const u = 6108;
    await fundWallet(ledger, u, '5');
    right(await bet(ledger, u, 'sn-6108'));
    expect(await env.store.readSnapshot(walletStream(u))).toBeUndefined();
    await coldLedger().ledger.internals.handler.snapshot(u);
    const written = await env.store.readSnapshot(walletStream(u));
    expect(written?.revision).toBe(2n);
    expect(decodeWalletSnapshot(u, written!.data)!.bets.has('sn-6108')).toBe(true); // an open bet is kept
    await ledger.internals.handler.snapshot(u);
    expect(await env.store.readSnapshot(walletStream(u))).toEqual(written);
  });

  it('when a bet id was claimed by this wallet in a race it lost, then the next placement is looked up, found new, and placed once', async () => {
    const u = 6104;
    await fundWallet(ledger, u, '10');
    await env.pool.query(`INSERT INTO ledger_keys (kind, key, user_id) VALUES ('bet', 'lost-race-6104', $1)`, [u]);
    const placed = right(await bet(coldLedger().ledger, u, 'lost-race-6104'));
    expect(placed.created).toBe(true);
    expect(isRight(await bet(ledger, u, 'lost-race-6104'))).toBe(true);
    expect(await balance(ledger, u)).toBe('9');
  });
});
