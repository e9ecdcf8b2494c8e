import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { createLedgerEnv, fundWallet, type LedgerEnv } from '../support/ledger-env.js';

const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } };
const BOUND = 12;

describe('the wallet cache is bounded by what its wallets remember, and a wallet that left it answers as before', () => {
  let env: LedgerEnv;
  let ledger: ReturnType<typeof createLedger>;
  beforeAll(async () => {
    env = await createLedgerEnv('wallet-cache');
    ledger = createLedger({ store: env.store, pool: env.pool, walletCacheEntries: BOUND });
  });
  afterAll(async () => {
    await env.close();
  });

  const handler = () => ledger.internals.handler;
  const fund = (userId: number) => fundWallet(ledger, userId, '100');
  const bet = (userId: number, n: number, amount = '1') =>
    ledger.placeBet({ id: `wc-${userId}-${n}`, userId, roundId: `r-${n}`, gameId: 7, gameIdentity: game, currencyId: 'USDT', amount });
  const balance = async (userId: number) => (await ledger.balances(userId)).find((b) => b.currencyId === 'USDT')?.balance;

  it('when a second wallet fills the cache past its bound, then the idle first one leaves it, and its repeats, settlements and conflicts answer as if it had stayed', async () => {
    await fund(2001);
    for (let n = 1; n <= 8; n += 1) expect(isRight(await bet(2001, n))).toBe(true);
    expect(handler().peek(2001)).toBeDefined();

    await fund(2002);
    for (let n = 1; n <= 5; n += 1) expect(isRight(await bet(2002, n))).toBe(true);
    expect(handler().peek(2001)).toBeUndefined();
    expect(handler().peek(2002)).toBeDefined();
    expect(handler().cachedEntries()).toBeLessThanOrEqual(BOUND);

    const repeat = await bet(2001, 1);
    expect(isRight(repeat) && repeat.right.created).toBe(false);
    expect(isRight(repeat) && repeat.right.bet.status).toBe('CREATED');
    const conflicting = await bet(2001, 2, '2');
    expect(isLeft(conflicting)).toBe(true);
    const settled = await ledger.settleBet('wc-2001-3', { payout: '5' });
    expect(isRight(settled) && settled.right.status).toBe('SETTLED');
    const settledAgain = await ledger.settleBet('wc-2001-3', { payout: '5' });
    expect(isRight(settledAgain) && settledAgain.right.status).toBe('SETTLED');

    expect(await balance(2001)).toBe('97'); // 100 - 8 stakes + one payout of 5, each counted once
    expect(await balance(2002)).toBe('95');
    expect(handler().cachedEntries()).toBeLessThanOrEqual(BOUND);
  });

  it('when one wallet alone remembers more than the bound, then it leaves the cache once idle and its next commands still see every bet', async () => {
    await fund(2003);
    for (let n = 1; n <= BOUND + 3; n += 1) expect(isRight(await bet(2003, n))).toBe(true);
    expect(handler().peek(2003)).toBeUndefined();
    expect(handler().cachedEntries()).toBeLessThanOrEqual(BOUND);

    const repeat = await bet(2003, 1);
    expect(isRight(repeat) && repeat.right.created).toBe(false);
    expect(await balance(2003)).toBe(String(100 - (BOUND + 3)));
  });
});
