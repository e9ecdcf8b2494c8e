import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedgerEnv, fundWallet, type LedgerEnv } from '../support/ledger-env.js';

const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } };

describe('wallet commands under concurrency', () => {
  let env: LedgerEnv;
  beforeAll(async () => {
    env = await createLedgerEnv('concurrency');
  });
  afterAll(async () => {
    await env.close();
  });

  const fund = (userId: number, amount: string) => fundWallet(env.ledger, userId, amount);

  it('when 200 debits race against a wallet that covers 100, then exactly 100 succeed and the balance is exact', async () => {
    await fund(1, '100.000001');
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        env.ledger.placeBet({
          id: `race-${i}`,
          userId: 1,
          roundId: `r-${i}`,
          gameId: 7,
          gameIdentity: game,
          currencyId: 'USDT',
          amount: '1',
        }),
      ),
    );
    const ok = results.filter(isRight);
    const refused = results.filter(isLeft);
    expect(ok).toHaveLength(100);
    expect(refused).toHaveLength(100);
    expect(new Set(refused.map((r) => r.left._tag))).toEqual(new Set(['InsufficientFunds']));
    expect(await env.ledger.balances(1)).toEqual([{ userId: 1, currencyId: 'USDT', balance: '0.000001' }]);
  });

  it('when two processes debit one wallet at once, then optimistic concurrency lets exactly the covered ones through', async () => {
    await fund(2, '50');
    const other = env.secondProcess();
    const bet = (ledger: typeof env.ledger, i: number) =>
      ledger.placeBet({ id: `two-${i}`, userId: 2, roundId: `r2-${i}`, gameId: 7, gameIdentity: game, currencyId: 'USDT', amount: '1' });
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => bet(i % 2 === 0 ? env.ledger : other, i)));
    expect(results.filter(isRight)).toHaveLength(50);
    expect(results.filter(isLeft).every((r) => r.left._tag === 'InsufficientFunds')).toBe(true);
    expect(await other.balances(2)).toEqual([{ userId: 2, currencyId: 'USDT', balance: '0' }]);
    const events = await env.store.readStream('wallet-2');
    expect(events.filter((e) => e.type === 'BetPlaced')).toHaveLength(50);
  });

  it('when the same bet is placed 20 times at once, then the stake is debited once and every call returns that bet', async () => {
    await fund(3, '10');
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        env.ledger.placeBet({
          id: 'same-bet',
          userId: 3,
          roundId: 'r',
          gameId: 7,
          gameIdentity: game,
          currencyId: 'USDT',
          amount: '2.5',
        }),
      ),
    );
    expect(results.every(isRight)).toBe(true);
    expect(results.filter((r) => isRight(r) && r.right.created)).toHaveLength(1);
    expect(await env.ledger.balances(3)).toEqual([{ userId: 3, currencyId: 'USDT', balance: '7.5' }]);
  });

  it('when a bet id already belongs to another user, then placing it for a second user is refused', async () => {
    await fund(4, '10');
    await fund(5, '10');
    const first = await env.ledger.placeBet({
      id: 'owned',
      userId: 4,
      roundId: 'r',
      gameId: 7,
      gameIdentity: game,
      currencyId: 'USDT',
      amount: '1',
    });
    const second = await env.ledger.placeBet({
      id: 'owned',
      userId: 5,
      roundId: 'r',
      gameId: 7,
      gameIdentity: game,
      currencyId: 'USDT',
      amount: '1',
    });
    expect(isRight(first)).toBe(true);
    expect(isLeft(second) && second.left._tag).toBe('IdempotencyConflict');
    expect(await env.ledger.balances(5)).toEqual([{ userId: 5, currencyId: 'USDT', balance: '10' }]);
  });
});
