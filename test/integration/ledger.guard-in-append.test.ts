import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { createLimits } from '../../src/commands/limits.js';
import { createPostgresEventStore } from '../../src/infra/event-store/postgres/postgres.event-store.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { fundWallet } from '../support/ledger-env.js';
import { migrateAll } from '../../src/schema.js';

const game = { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } };

describe('bet guard checked inside the PostgreSQL append', () => {
  let db: TestDb;
  let pool: ReturnType<TestDb['pool']>;
  let store: ReturnType<typeof createPostgresEventStore>;
  let ledger: ReturnType<typeof createLedger>;
  let limits: ReturnType<typeof createLimits>;
  beforeAll(async () => {
    db = await createTestDb('guard-append');
    pool = db.pool({ max: 8 });
    await migrateAll(pool);
    store = createPostgresEventStore({ pool, pollIntervalMs: 50 });
    limits = createLimits({ store, pool });
    ledger = createLedger({ store, pool, betGuard: limits.betGuard });
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  const bet = (userId: number, id: string, amount: string) =>
    ledger.placeBet({ id, userId, roundId: 'r', gameId: 7, gameIdentity: game, currencyId: 'USDT', amount });
  const keysOf = async (prefix: string): Promise<number> =>
    Number(
      (await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ledger_keys WHERE kind = 'bet' AND key LIKE $1`, [`${prefix}%`])).rows[0]!
        .n,
    );

  it("when bets under and over the bet limit share one wallet's appends, then only those over it are refused, with the limit named", async () => {
    await fundWallet(ledger, 1, '100');
    expect(isRight(await limits.setBetLimit(1, '2', 99))).toBe(true);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => bet(1, `lim-${i}`, i % 2 === 0 ? '1' : '5')));
    results.forEach((r, i) => {
      if (i % 2 === 0) expect(isRight(r)).toBe(true);
      else expect(isLeft(r) && r.left).toMatchObject({ _tag: 'BetLimitExceeded', betLimit: '2' });
    });
    expect(await ledger.balances(1)).toEqual([{ userId: 1, currencyId: 'USDT', balance: '90' }]);
    expect(await keysOf('lim-')).toBe(10);
  });

  it('when a user is self-excluded, then every bet is refused as excluded and nothing is written', async () => {
    await fundWallet(ledger, 2, '10');
    const until = new Date(Date.now() + 3_600_000);
    expect(isRight(await limits.setExclusion(2, until, 99))).toBe(true);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => bet(2, `ex-${i}`, '1')));
    expect(results.every((r) => isLeft(r) && r.left._tag === 'UserSelfExcluded')).toBe(true);
    expect(await ledger.balances(2)).toEqual([{ userId: 2, currencyId: 'USDT', balance: '10' }]);
    expect(await keysOf('ex-')).toBe(0);
  });

  it('when a user is banned and has no funds, then the bet is refused for the ban, as when the guard was read first', async () => {
    await pool.query(`INSERT INTO user_access (user_id, revision, state, roles, permissions, is_banned, username)
      VALUES (3, 0, '{}', '{User}', '{}', true, 'banned3')`);
    const refused = await bet(3, 'ban-1', '1');
    expect(isLeft(refused) && refused.left._tag).toBe('UserBanned');
    expect(await keysOf('ban-')).toBe(0);
  });
});
