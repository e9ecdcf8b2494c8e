import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { createLimits } from '../../src/commands/limits.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { migrateAll } from '../../src/schema.js';

const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } };
const HOUR = 3_600_000;

/** Deposit and loss limits as the ledger enforces them, on a clock the test moves (no waiting). */
describe('deposit and loss limits in the write path', () => {
  let db: TestDb;
  let pool: ReturnType<TestDb['pool']>;
  let store: ReturnType<typeof createPostgresEventStore>;
  let ledger: ReturnType<typeof createLedger>;
  let limits: ReturnType<typeof createLimits>;
  let now = Date.parse('2026-03-02T10:30:00.000Z');
  const clock = () => new Date(now);
  const advance = (ms: number) => {
    now += ms;
  };
  beforeAll(async () => {
    db = await createTestDb('gambling-limits');
    pool = db.pool({ max: 8 });
    await migrateAll(pool);
    store = createPostgresEventStore({ pool, pollIntervalMs: 50 });
    limits = createLimits({ store, pool, clock });
    ledger = createLedger({ store, pool, clock, betGuard: limits.betGuard });
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  const deposit = (userId: number, externalId: string, amount: string, txHash?: string) =>
    ledger.requestDeposit({
      externalId,
      userId,
      providerId: 'TEST',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount,
      usdAmount: amount,
      txHash,
    });
  const fund = async (userId: number, amount: string) => {
    const dep = await deposit(userId, `fund-${userId}-${now}`, amount);
    if (isLeft(dep)) throw new Error(JSON.stringify(dep.left));
    expect(isRight(await ledger.completeDeposit(dep.right.deposit.id, {}))).toBe(true);
  };
  const bet = (userId: number, id: string, amount: string) =>
    ledger.placeBet({ id, userId, roundId: 'r', gameId: 7, gameIdentity: game, currencyId: 'USDT', amount, usdAmount: amount });
  const setLimit = async (userId: number, kind: 'deposit' | 'loss', window: '24h' | '7d' | '30d', value: string | null) => {
    const set = await limits.setGamblingLimit(userId, { kind, window, value }, 99);
    if (isLeft(set)) throw new Error(JSON.stringify(set.left));
    return set.right.limits.find((l) => l.kind === kind && l.window === window)!;
  };
  const tag = (r: Awaited<ReturnType<typeof bet>>) => (isLeft(r) ? r.left._tag : 'placed');

  it('when 50 bets race against a loss limit, then the accepted stakes stop at the limit and the rest are refused with it named', async () => {
    await fund(1, '1000');
    await setLimit(1, 'loss', '24h', '100');
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => bet(1, `race-${i}`, '7')));
    const placed = results.filter(isRight).length;
    expect(placed).toBe(14); // 14 x 7 = 98; a 15th would make 105
    for (const r of results.filter(isLeft)) expect(r.left).toMatchObject({ _tag: 'LossLimitExceeded', window: '24h' });
    expect(await ledger.balances(1)).toEqual([{ userId: 1, currencyId: 'USDT', balance: '902' }]);
    // A payout lowers the net loss: the room it leaves can be staked again.
    expect(isRight(await ledger.settleBet('race-0', { payout: '10', usdPayout: '10' }))).toBe(true);
    expect(tag(await bet(1, 'after-win', '9'))).toBe('placed');
    expect(tag(await bet(1, 'after-win-2', '4'))).toBe('LossLimitExceeded'); // 98 - 10 + 9 + 4 = 101
  });

  it('when a loss limit is raised, then the raise is pending for 24 hours and applies by itself afterwards; a cut applies at once', async () => {
    await fund(2, '1000');
    await setLimit(2, 'loss', '7d', '10');
    expect(tag(await bet(2, 'p-1', '10'))).toBe('placed');
    const raised = await setLimit(2, 'loss', '7d', '50');
    expect(raised).toMatchObject({ limit: '10', pending: { limit: '50', effectiveAt: new Date(now + 24 * HOUR).toISOString() } });
    expect(tag(await bet(2, 'p-2', '5'))).toBe('LossLimitExceeded');
    advance(24 * HOUR);
    expect(tag(await bet(2, 'p-3', '5'))).toBe('placed');
    expect((await limits.gamblingLimits(2)).limits.find((l) => l.kind === 'loss' && l.window === '7d')).toMatchObject({
      limit: '50',
      pending: null,
    });
    const cut = await setLimit(2, 'loss', '7d', '15');
    expect(cut).toMatchObject({ limit: '15', pending: null });
    expect(tag(await bet(2, 'p-4', '1'))).toBe('LossLimitExceeded');
    const removal = await setLimit(2, 'loss', '7d', null);
    expect(removal).toMatchObject({ limit: '15', pending: { limit: null } });
    expect(tag(await bet(2, 'p-5', '1'))).toBe('LossLimitExceeded');
    advance(24 * HOUR + 1);
    expect(tag(await bet(2, 'p-6', '100'))).toBe('placed');
  });

  it('when the window has rolled past the losses, then they no longer count', async () => {
    await fund(3, '1000');
    await setLimit(3, 'loss', '24h', '20');
    expect(tag(await bet(3, 'w-1', '20'))).toBe('placed');
    expect(tag(await bet(3, 'w-2', '1'))).toBe('LossLimitExceeded');
    advance(24 * HOUR);
    expect(tag(await bet(3, 'w-3', '1'))).toBe('LossLimitExceeded'); // the window counts whole hours: the bet's hour is still in
    advance(HOUR);
    expect(tag(await bet(3, 'w-4', '20'))).toBe('placed');
  });

  it('when a deposit request would pass the deposit limit, then it is refused before money moves; one already on chain is held', async () => {
    await setLimit(4, 'deposit', '24h', '50');
    const first = await deposit(4, 'd-1', '30');
    expect(isRight(first)).toBe(true);
    const refused = await deposit(4, 'd-2', '30');
    expect(isLeft(refused) && refused.left).toMatchObject({ _tag: 'DepositLimitExceeded', window: '24h', limit: '50' });
    const onChain = await deposit(4, 'd-3', '30', '0xabc');
    if (isLeft(onChain) || isLeft(first)) throw new Error('deposit refused');
    expect(isRight(await ledger.completeDeposit(first.right.deposit.id, {}))).toBe(true);
    expect(isRight(await ledger.completeDeposit(onChain.right.deposit.id, {}))).toBe(true);
    // Only the deposit within the limit is playable; the other is held on house:deposits-held, in the same double entry.
    expect(await ledger.balances(4)).toEqual([{ userId: 4, currencyId: 'USDT', balance: '30' }]);
    const { rows } = await pool.query<{ held: boolean; postings: unknown }>(
      `SELECT (data->>'held')::boolean AS held, data->'postings' AS postings FROM events
       WHERE stream_id = 'wallet-4' AND type = 'DepositCompleted' AND data->>'depositId' = $1`,
      [onChain.right.deposit.id],
    );
    expect(rows[0]).toEqual({
      held: true,
      postings: [
        { account: 'house:deposits', currencyId: 'USDT', amount: '-30' },
        { account: 'house:deposits-held', currencyId: 'USDT', amount: '30' },
      ],
    });
    expect(isLeft(await deposit(4, 'd-4', '1'))).toBe(true); // the held deposit counts too: deposits are gross
  });

  it('when the store cannot check in its append (as KurrentDB), then the same rule is read before the bet and the deposit', async () => {
    const before = createLedger({ store, pool, clock, betGuard: (userId, usd, figures) => limits.betGuard(userId, usd, figures) });
    await fund(6, '100');
    await setLimit(6, 'loss', '30d', '10');
    const place = (id: string, amount: string) =>
      before.placeBet({ id, userId: 6, roundId: 'r', gameId: 7, gameIdentity: game, currencyId: 'USDT', amount, usdAmount: amount });
    expect(tag(await place('k-1', '6'))).toBe('placed');
    expect(tag(await place('k-2', '6'))).toBe('LossLimitExceeded');
    expect(tag(await place('k-3', '4'))).toBe('placed');
    await setLimit(6, 'deposit', '24h', '150');
    const refused = await before.requestDeposit({
      externalId: 'k-dep',
      userId: 6,
      providerId: 'TEST',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount: '60',
      usdAmount: '60',
    });
    expect(isLeft(refused) && refused.left._tag).toBe('DepositLimitExceeded');
  });

  it('when a deposit request fails, then it stops counting against the deposit limit', async () => {
    await setLimit(5, 'deposit', '7d', '50');
    const failing = await deposit(5, 'f-1', '40');
    if (isLeft(failing)) throw new Error('deposit refused');
    expect(isLeft(await deposit(5, 'f-2', '20'))).toBe(true);
    expect(isRight(await ledger.failDeposit(failing.right.deposit.id, { reason: 'expired' }))).toBe(true);
    expect(isRight(await deposit(5, 'f-3', '20'))).toBe(true);
  });
});
