import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walletStream } from '../../src/domain/wallet/wallet.events.js';
import { createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { balanceOf, eventCount, fundedUser, signedInAdmin, trialBalance } from '../support/money-env.js';

let env: AuthEnv;
let superadmin: Awaited<ReturnType<typeof signedInAdmin>>;

beforeAll(async () => {
  env = await createAuthEnv('money_balance');
  superadmin = await signedInAdmin(env, [], true);
});
afterAll(async () => {
  await env?.close();
});

const put = (userId: number | string, body: unknown, headers: Record<string, string> = {}) =>
  superadmin.as('PUT', `/user/${userId}/balance`, { body, headers });

describe('PUT /user/:id/balance', () => {
  it('when a SuperAdmin sets a balance above and then below the current one, then 200 {userId, currencyId, balance} each time', async () => {
    const user = await fundedUser(env, '2');
    const up = await put(user.id, { balance: '5.5', currencyId: 'BTC' });
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ userId: user.id, currencyId: 'BTC', balance: '5.5' });
    const down = await put(user.id, { balance: '0', currencyId: 'BTC' });
    expect(down.body).toEqual({ userId: user.id, currencyId: 'BTC', balance: '0' });
    expect(await balanceOf(env, user.id)).toBe('0');
    const [event] = (await env.store.readStream(walletStream(user.id))).slice(-1);
    expect(event).toMatchObject({ type: 'BalanceSet', data: { adminUserId: superadmin.id, previousBalance: '5.5', balance: '0' } });
  });

  it('when the balance of a currency the user never held is set, then that wallet is created with it', async () => {
    const user = await env.makeUser();
    const reply = await put(user.id, { balance: '100.25', currencyId: 'DBC' });
    expect(reply.body).toEqual({ userId: user.id, currencyId: 'DBC', balance: '100.25' });
  });

  it.each([
    ['a malformed decimal', { balance: 'ten' }, 'body.balance'],
    ['a negative balance', { balance: '-1' }, 'body.balance'],
    ['more decimals than the currency has', { balance: '1.123456789' }, 'body.balance'],
    ['a balance as a number', { balance: 3 }, 'body.balance'],
    ['an unknown currencyId', { currencyId: 'EUR' }, 'body.currencyId'],
    ['a missing balance', { balance: undefined }, 'body.balance'],
    ['a missing currencyId', { currencyId: undefined }, 'body.currencyId'],
  ])('when the body has %s, then 400 VALIDATION_FAILED naming the field and nothing changes', async (_, over, field) => {
    const user = await fundedUser(env, '1');
    const before = await eventCount(env);
    const reply = await put(user.id, { balance: '3', currencyId: 'BTC', ...over });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await eventCount(env)).toBe(before);
    expect(await balanceOf(env, user.id)).toBe('1');
  });

  it('when the path id is not a positive integer, then 400 naming params.id', async () => {
    const reply = await put('abc', { balance: '1', currencyId: 'BTC' });
    expect(reply.status).toBe(400);
    expect(reply.body.details[0].field).toBe('params.id');
  });

  it('when the user does not exist, then 404 USER_NOT_FOUND and nothing changes', async () => {
    const before = await eventCount(env);
    const reply = await put(987_654_321, { balance: '1', currencyId: 'BTC' });
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('USER_NOT_FOUND');
    expect(await eventCount(env)).toBe(before);
  });

  it('when a set-balance is retried with the same Idempotency-Key after the balance moved, then it answers the same and is not applied again', async () => {
    const user = await fundedUser(env, '1');
    const headers = { 'idempotency-key': `set-${user.id}` };
    const first = await put(user.id, { balance: '4', currencyId: 'BTC' }, headers);
    expect(first.body.balance).toBe('4');
    await env.ledger.deductBalance({
      recipientUserId: user.id,
      adminUserId: superadmin.id,
      currencyId: 'BTC',
      amount: '1',
      notes: 'between retries',
    });
    const events = await eventCount(env);
    const again = await put(user.id, { balance: '4', currencyId: 'BTC' }, headers);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await balanceOf(env, user.id)).toBe('3');
    expect(await eventCount(env)).toBe(events);
  });

  it('when the same Idempotency-Key comes with another balance, then 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const user = await fundedUser(env, '1');
    const headers = { 'idempotency-key': `set-diff-${user.id}` };
    await put(user.id, { balance: '4', currencyId: 'BTC' }, headers);
    const reply = await put(user.id, { balance: '5', currencyId: 'BTC' }, headers);
    expect(reply.status).toBe(422);
    expect(await balanceOf(env, user.id)).toBe('4');
  });

  it('when balances are set, then the house side mirrors them and the trial balance still sums to zero per currency', async () => {
    const projector = env.startProjector();
    const user = await fundedUser(env, '1');
    await put(user.id, { balance: '7', currencyId: 'BTC' });
    await projector.waitFor(env.ledger.internals.handler.lastPosition());
    expect(Object.values(await trialBalance(env)).every((sum) => Number(sum) === 0)).toBe(true);
  });
});
