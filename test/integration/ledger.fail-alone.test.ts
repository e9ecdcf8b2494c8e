import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { AppendRefused } from '../../src/infra/event-store/event-store.port.js';
import { createLedgerEnv, fundWallet, type LedgerEnv } from '../support/ledger-env.js';

const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } };

describe('a command fails alone, and a refused command leaves no state', () => {
  let env: LedgerEnv;
  beforeAll(async () => {
    env = await createLedgerEnv('fail-alone');
  });
  afterAll(async () => {
    await env.close();
  });

  const keyRows = async (): Promise<number> =>
    Number((await env.pool.query<{ n: string }>('SELECT count(*) AS n FROM ledger_keys')).rows[0]!.n);

  it('when tips PostgreSQL cannot store share group commits with valid bets on many wallets, then every valid bet succeeds and balances are exact', async () => {
    const wallets = Array.from({ length: 40 }, (_, i) => 1000 + i);
    await Promise.all(wallets.map((w) => fundWallet(env.ledger, w, '100')));
    const rounds = 5;
    const bets: Promise<unknown>[] = [];
    const tips: Promise<unknown>[] = [];
    for (let round = 0; round < rounds; round += 1) {
      wallets.forEach((w, i) => {
        bets.push(
          env.ledger.placeBet({
            id: `fa-${w}-${round}`,
            userId: w,
            roundId: `r-${round}`,
            gameId: 7,
            gameIdentity: game,
            currencyId: 'USDT',
            amount: '1',
          }),
        );
        // Interleaved: a NUL byte in notes (22P05 in jsonb), to a wallet that also has bets in flight.
        if (i % 4 === 0) {
          tips.push(
            env.ledger
              .tip({
                recipientUserId: wallets[(i + 1) % wallets.length]!,
                adminUserId: 1,
                currencyId: 'USDT',
                amount: '5',
                notes: `bad\u0000${round}`,
              })
              .then(
                (r) => r,
                (e: unknown) => e,
              ),
          );
        }
      });
    }
    const betResults = await Promise.all(bets);
    const tipResults = await Promise.all(tips);
    expect(betResults.filter((r) => !isRight(r as never))).toEqual([]);
    expect(tipResults.length).toBe(50);
    expect(tipResults.every((r) => r instanceof AppendRefused && r.sqlState === '22P05')).toBe(true);
    for (const w of wallets)
      expect(await env.ledger.balances(w)).toEqual([{ userId: w, currencyId: 'USDT', balance: String(100 - rounds) }]);
    // The store agrees with the cached wallets: a fresh process folds the same balances.
    const other = env.secondProcess();
    for (const w of wallets.slice(0, 5))
      expect(await other.balances(w)).toEqual([{ userId: w, currencyId: 'USDT', balance: String(100 - rounds) }]);
  });

  it('when a bet is refused for insufficient funds, then no ledger_keys row is written', async () => {
    await fundWallet(env.ledger, 2001, '1');
    const before = await keyRows();
    const refused = await env.ledger.placeBet({
      id: 'too-big',
      userId: 2001,
      roundId: 'r',
      gameId: 7,
      gameIdentity: game,
      currencyId: 'USDT',
      amount: '5',
    });
    expect(isLeft(refused) && refused.left._tag).toBe('InsufficientFunds');
    expect(await keyRows()).toBe(before);
    const settle = await env.ledger.settleBet('too-big', { payout: '0' });
    expect(isLeft(settle) && settle.left._tag).toBe('BetNotFound');
  });

  it('when a deposit is refused as a reused key (422), then no ledger_keys row is written', async () => {
    const first = await env.ledger.requestDeposit({
      externalId: 'ext-1',
      userId: 2002,
      providerId: 'P',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount: '10',
    });
    expect(isRight(first)).toBe(true);
    const before = await keyRows();
    const again = await env.ledger.requestDeposit({
      externalId: 'ext-1',
      userId: 2002,
      providerId: 'P',
      networkId: 'ETH',
      currencyId: 'USDT',
      amount: '11',
    });
    expect(isLeft(again) && again.left._tag).toBe('IdempotencyConflict');
    expect(await keyRows()).toBe(before);
  });

  it('when an affiliate claim names a user that does not exist, then it is refused and no ledger_keys row is written', async () => {
    const ledger = createLedger({ store: env.store, pool: env.pool, userExists: async (id) => id < 5000 });
    const before = await keyRows();
    const refused = await ledger.claimAffiliateCommission({ claimId: 'claim-ghost', userId: 9999, currencyId: 'USDT', amount: '1' });
    expect(isLeft(refused) && refused.left._tag).toBe('UserNotFound');
    expect(await keyRows()).toBe(before);
  });

  it('when two users race for one bet id, then exactly one wallet is debited and the other is refused as a reused key', async () => {
    await Promise.all([fundWallet(env.ledger, 2003, '10'), fundWallet(env.ledger, 2004, '10')]);
    const other = env.secondProcess();
    const [a, b] = await Promise.all([
      env.ledger.placeBet({ id: 'contested', userId: 2003, roundId: 'r', gameId: 7, gameIdentity: game, currencyId: 'USDT', amount: '1' }),
      other.placeBet({ id: 'contested', userId: 2004, roundId: 'r', gameId: 7, gameIdentity: game, currencyId: 'USDT', amount: '1' }),
    ]);
    expect([a, b].filter(isRight)).toHaveLength(1);
    expect([a, b].filter((r) => isLeft(r) && r.left._tag === 'IdempotencyConflict')).toHaveLength(1);
    const balances = [...(await env.ledger.balances(2003)), ...(await other.balances(2004))].map((x) => x.balance).sort();
    expect(balances).toEqual(['10', '9']);
    const { rows } = await env.pool.query<{ user_id: string }>(`SELECT user_id FROM ledger_keys WHERE kind = 'bet' AND key = 'contested'`);
    expect(rows.map((r) => Number(r.user_id))).toEqual([isRight(a) ? 2003 : 2004]);
  });
});
