import { isRight } from 'fp-ts/lib/Either.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRates } from '../../src/commands/rates.js';
import { createRedisBus, type ServerEventBus } from '../../src/realtime/bus.js';
import { startLedgerPublisher, type LedgerPublisher } from '../../src/realtime/ledger-publisher.js';
import { createAuthEnv, type AuthEnv } from '../support/auth-env.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('the realtime publisher (ledger -> Redis server channels)', () => {
  let env: AuthEnv;
  let publisher: LedgerPublisher;
  let bus: ServerEventBus;
  const connections: Redis[] = [];
  const received: { name: string; message: Record<string, unknown> }[] = [];
  let unsubscribe: () => Promise<void>;

  beforeAll(async () => {
    env = await createAuthEnv('publisher');
    env.startProjector(); // the users read model names the tipping admin
    connections.push(new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL));
    bus = createRedisBus(connections[0]!, connections[1]!);
    // A separate listener connection, as a gateway would have; only this test's users are kept.
    const listener = createRedisBus(connections[0]!, connections[2]!);
    unsubscribe = await listener.subscribe((name, message) => received.push({ name, message }));
    publisher = await startLedgerPublisher({ store: env.store, pool: env.pool, bus, rates: createRates({ pool: env.pool }) });
  });
  afterAll(async () => {
    await publisher.stop();
    await unsubscribe();
    connections.forEach((c) => c.disconnect());
    await env.close();
  });

  const eventually = async (check: () => void, ms = 5_000): Promise<void> => {
    const deadline = Date.now() + ms;
    for (;;) {
      try { return check(); } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 25));
      }
    }
  };

  it('when an admin tips a user, then BalanceUpdated and BalanceTippedSuccess reach that user only, in ledger order', async () => {
    const admin = await env.makeUser({ roles: ['Admin'], username: 'tipper1' });
    const alice = await env.makeUser();
    const bob = await env.makeUser();
    // Wait for the users read model: the tip names the admin by username.
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const { rowCount } = await env.pool.query('SELECT 1 FROM users WHERE id = $1', [admin.id]);
      if (rowCount) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const tip = await env.ledger.tip({ recipientUserId: alice.id, adminUserId: admin.id, currencyId: 'USDT', amount: '12.5', notes: 'welcome' });
    expect(isRight(tip)).toBe(true);
    const forAlice = () => received.filter((r) => r.message.userId === alice.id);
    await eventually(() => expect(forAlice()).toHaveLength(2));
    const [updated, tipped] = forAlice();
    expect(updated).toMatchObject({ name: 'BalanceUpdated', message: { payload: { currencyId: 'USDT', amount: '12.5', usdAmount: '12.5', source: 'ADMIN_TIP' } } });
    expect(tipped).toMatchObject({ name: 'BalanceTippedSuccess', message: { payload: { amount: '12.5', currencyId: 'USDT', fromAdminUsername: 'tipper1' } } });
    expect(updated!.message.position).toBe(tipped!.message.position);
    expect(received.some((r) => r.message.userId === bob.id)).toBe(false);
  });

  it('when a user deposits and bets, then each balance change is pushed with its source and growing positions', async () => {
    const carol = await env.makeUser();
    const dep = await env.ledger.requestDeposit({ externalId: `pub-${carol.id}`, userId: carol.id, providerId: 'TEST', networkId: 'ETH', currencyId: 'BTC', amount: '0.01' });
    if (!isRight(dep)) throw new Error('deposit refused');
    await env.ledger.completeDeposit(dep.right.deposit.id, {});
    await env.ledger.placeBet({ id: `pub-bet-${carol.id}`, userId: carol.id, roundId: 'r', gameId: 1, gameIdentity: { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } }, currencyId: 'BTC', amount: '0.004' });
    const forCarol = () => received.filter((r) => r.message.userId === carol.id);
    await eventually(() => expect(forCarol()).toHaveLength(2));
    expect(forCarol().map((r) => [r.name, (r.message.payload as { source: string; amount: string }).source, (r.message.payload as { amount: string }).amount]))
      .toEqual([['BalanceUpdated', 'DEPOSIT', '0.01'], ['BalanceUpdated', 'BET', '0.006']]);
    const [a, b] = forCarol().map((r) => String(r.message.position).split('/').map(BigInt));
    expect(a![0]! < b![0]! || (a![0] === b![0] && a![1]! < b![1]!)).toBe(true);
  });
});
