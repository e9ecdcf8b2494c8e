import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { signedInAdmin } from '../support/money-env.js';
import { eventsAtMinutes, playScenario } from '../support/audit-ledger.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const minute = (n: number): string => new Date(T0 + n * 60_000).toISOString();

let env: AuthEnv;
let admin: Awaited<ReturnType<typeof signedInAdmin>>;
let alice: number;
let bob: number;
/** Alice's BetSettled (the first payout): its global position and the minute it was recorded at. */
let settled: { position: string; minute: number };

beforeAll(async () => {
  env = await createAuthEnv('acct_balances');
  admin = await signedInAdmin(env, ['balance.view']);
  alice = (await env.makeUser()).id;
  bob = (await env.makeUser()).id;
  await playScenario(env.ledger, { alice, bob });
  await eventsAtMinutes(env.pool, minute(0));
  settled = (
    await env.pool.query<{ position: string; minute: number }>(
      `SELECT transaction_id::text || '/' || global_position AS position,
      (extract(epoch FROM created_at - $1::timestamptz) / 60)::int AS minute
    FROM events WHERE stream_id = $2 AND type = 'BetSettled'`,
      [minute(0), `wallet-${alice}`],
    )
  ).rows[0]!;
});
afterAll(async () => {
  await env?.close();
});

describe('GET /accounting/balances', () => {
  it('when asked without a point in time, then the balances folded from the wallet stream now, with the last position', async () => {
    const reply = await admin.as('GET', `/accounting/balances?userId=${alice}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      userId: alice,
      at: null,
      position: expect.stringMatching(/^\d+\/\d+$/),
      balances: [
        { currencyId: 'BTC', amount: '1.7' },
        { currencyId: 'USDT', amount: '69.5' },
      ],
    });
  });

  it('when asked at a time between the first payout and the next bet, then the balance known after the payout', async () => {
    const at = new Date(Date.parse(minute(settled.minute)) + 30_000).toISOString();
    const reply = await admin.as('GET', `/accounting/balances?userId=${alice}&at=${encodeURIComponent(at)}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ userId: alice, at, position: settled.position, balances: [{ currencyId: 'BTC', amount: '2' }] });
  });

  it('when history was decided on a clock behind the store (as the demo seed records it), then the balance as of a past time counts its movements', async () => {
    // The store stamps each event with its own time (now); the ledger decided them days earlier. A point between the two
    // found no event when "as of" read the store's time, while the movements list (decision time) showed them all.
    const past = (h: number) => new Date(Date.parse('2026-11-20T00:00:00Z') + h * 3_600_000);
    let now = past(0);
    const seeded = createLedger({ store: env.store, pool: env.pool, clock: () => now });
    const player = (await env.makeUser()).id;
    for (const [hour, amount] of [
      [1, '10'],
      [30, '2.5'],
    ] as const) {
      now = past(hour);
      const made = await seeded.requestDeposit({
        externalId: `seed-${player}-${hour}`,
        userId: player,
        providerId: 'TEST',
        networkId: 'BSC',
        currencyId: 'DBC',
        amount,
      });
      if (made._tag === 'Left') throw new Error(made._tag);
      expect((await seeded.completeDeposit(made.right.deposit.id, {}))._tag).toBe('Right');
    }
    const asOf = async (h: number) =>
      (await admin.as('GET', `/accounting/balances?userId=${player}&at=${encodeURIComponent(past(h).toISOString())}`)).body.balances;
    expect(await asOf(0)).toEqual([]);
    expect(await asOf(12)).toEqual([{ currencyId: 'DBC', amount: '10' }]);
    expect(await asOf(48)).toEqual([{ currencyId: 'DBC', amount: '12.5' }]);
  });

  it('when asked with knownAt, then only what was recorded by then counts: here, a recording time before the payout', async () => {
    const at = new Date(Date.parse(minute(settled.minute)) + 30_000).toISOString();
    const knownAt = minute(settled.minute - 1);
    const reply = await admin.as(
      'GET',
      `/accounting/balances?userId=${alice}&at=${encodeURIComponent(at)}&knownAt=${encodeURIComponent(knownAt)}`,
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ userId: alice, at, balances: [{ currencyId: 'BTC', amount: '1' }] });
    const bad = await admin.as('GET', `/accounting/balances?userId=${alice}&knownAt=yesterday`);
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field)).toContain('query.knownAt');
  });

  it('when asked at a global position or at a time with an offset, then the same fold at that point', async () => {
    const byPosition = await admin.as('GET', `/accounting/balances?userId=${alice}&at=${settled.position}`);
    expect(byPosition.body).toEqual({
      userId: alice,
      at: settled.position,
      position: settled.position,
      balances: [{ currencyId: 'BTC', amount: '2' }],
    });
    const withOffset = await admin.as('GET', `/accounting/balances?userId=${bob}&at=${encodeURIComponent('2025-12-31T23:00:00-05:00')}`);
    expect(withOffset.body).toEqual({
      userId: bob,
      at: '2026-01-01T04:00:00.000Z',
      position: expect.any(String),
      balances: [
        { currencyId: 'ETH', amount: '3.25' },
        { currencyId: 'USDC', amount: '2.5' },
      ],
    });
  });

  it("when asked before the user's first event, then no balances and no position", async () => {
    const reply = await admin.as('GET', `/accounting/balances?userId=${bob}&at=2025-01-01T00:00:00Z`);
    expect(reply.body).toEqual({ userId: bob, at: '2025-01-01T00:00:00.000Z', position: null, balances: [] });
  });

  it.each([
    ['no userId', '', 'query.userId'],
    ['a userId that is not a number', '?userId=abc', 'query.userId'],
    ['a negative userId', '?userId=-4', 'query.userId'],
    ['a fractional userId', '?userId=1.5', 'query.userId'],
    ['a date without a time', '?userId=1&at=2026-01-01', 'query.at'],
    ['a time without a zone', '?userId=1&at=2026-01-01T10:00:00', 'query.at'],
    ['a malformed position', '?userId=1&at=12/', 'query.at'],
    ['two points', '?userId=1&at=1/2&at=3/4', 'query.at'],
  ])('when the query has %s, then 400 VALIDATION_FAILED naming the field', async (_name, query, field) => {
    const reply = await admin.as('GET', `/accounting/balances${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field })] });
  });

  it('when the user does not exist, then 404 USER_NOT_FOUND', async () => {
    const reply = await admin.as('GET', '/accounting/balances?userId=987654321');
    expect(reply).toMatchObject({ status: 404, body: { code: 'USER_NOT_FOUND' } });
  });

  it('when an Admin without balance.view asks, then 403; the operation is documented as an addition', async () => {
    const other = await signedInAdmin(env, ['user.view']);
    expect((await other.as('GET', `/accounting/balances?userId=${alice}`)).status).toBe(403);
    const route = env.registry.find((r) => r.method === 'get' && r.path === '/accounting/balances');
    expect(route).toMatchObject({ access: { kind: 'perm', permission: 'balance.view' }, docs: { addition: true } });
  });
});
