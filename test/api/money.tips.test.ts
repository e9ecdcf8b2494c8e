import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walletStream } from '../../src/domain/wallet/wallet.events.js';
import { createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { balanceOf, eventCount, fundedUser, signedInAdmin } from '../support/money-env.js';

let env: AuthEnv;
let tipper: Awaited<ReturnType<typeof signedInAdmin>>;
let deducter: Awaited<ReturnType<typeof signedInAdmin>>;

beforeAll(async () => {
  env = await createAuthEnv('money_tips');
  tipper = await signedInAdmin(env, ['admin-tips.tip']);
  deducter = await signedInAdmin(env, ['admin-tips.deduct-balance']);
});
afterAll(async () => {
  await env?.close();
});

const tipBody = (recipientUserId: number, over: Record<string, unknown> = {}) => ({
  amount: '0.5',
  currencyId: 'BTC',
  tag: 'LOSSBACK',
  recipientUserId,
  notes: 'goodwill',
  ...over,
});

const lastEvent = async (userId: number) => (await env.store.readStream(walletStream(userId))).at(-1)!;

/** The validation rules both tip routes share: each answers 400 naming the field and changes nothing. */
const INVALID: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
  ['a malformed decimal', { amount: '1,5' }, 'body.amount'],
  ['a negative amount', { amount: '-1' }, 'body.amount'],
  ['a zero amount', { amount: '0' }, 'body.amount'],
  ['more decimals than the currency has', { amount: '0.123456789' }, 'body.amount'],
  ['an amount as a number', { amount: 1 }, 'body.amount'],
  ['an unknown currencyId', { currencyId: 'DOGE' }, 'body.currencyId'],
  ['the response-only currency PLATFORM_TOKEN', { currencyId: 'PLATFORM_TOKEN' }, 'body.currencyId'],
  ['an unknown tag', { tag: 'BIRTHDAY' }, 'body.tag'],
  ['notes of 301 characters', { notes: 'x'.repeat(301) }, 'body.notes'],
  ['a missing notes', { notes: undefined }, 'body.notes'],
  ['a missing amount', { amount: undefined }, 'body.amount'],
  ['a missing currencyId', { currencyId: undefined }, 'body.currencyId'],
  ['a missing recipientUserId', { recipientUserId: undefined }, 'body.recipientUserId'],
  ['a recipientUserId as a string', { recipientUserId: '7' }, 'body.recipientUserId'],
];

describe('POST /admin-tips', () => {
  it('when an admin tips a user, then 201 {success: true}, the balance grows and the event records amount, currency and the admin', async () => {
    const user = await env.makeUser();
    const reply = await tipper.as('POST', '/admin-tips', { body: tipBody(user.id) });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({ success: true });
    expect(await balanceOf(env, user.id)).toBe('0.5');
    const event = await lastEvent(user.id);
    expect(event.type).toBe('AdminTipCredited');
    // What the realtime gateway needs for BalanceUpdated and BalanceTippedSuccess.
    expect(event.data).toMatchObject({
      amount: '0.5',
      usdAmount: expect.any(String),
      currencyId: 'BTC',
      adminUserId: tipper.id,
      tag: 'LOSSBACK',
      notes: 'goodwill',
    });
  });

  it('when the tag is left out and notes are at the limit of 300 characters, then the tip is made with tag null', async () => {
    const user = await env.makeUser();
    const reply = await tipper.as('POST', '/admin-tips', {
      body: tipBody(user.id, { tag: undefined, notes: 'n'.repeat(300), currencyId: 'DBC', amount: '12.34' }),
    });
    expect(reply.status).toBe(201);
    expect(await balanceOf(env, user.id, 'DBC')).toBe('12.34');
    expect((await lastEvent(user.id)).data).toMatchObject({ tag: null, currencyId: 'DBC' });
  });

  it.each(INVALID)('when the body has %s, then 400 VALIDATION_FAILED naming the field and nothing changes', async (_, over, field) => {
    const user = await env.makeUser();
    const before = await eventCount(env);
    const reply = await tipper.as('POST', '/admin-tips', { body: tipBody(user.id, over) });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await eventCount(env)).toBe(before);
    expect(await balanceOf(env, user.id)).toBe('0');
  });

  it('when the body is missing altogether, then 400 naming every required field', async () => {
    const reply = await tipper.as('POST', '/admin-tips');
    expect(reply.status).toBe(400);
    expect(reply.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'body.amount',
      'body.currencyId',
      'body.notes',
      'body.recipientUserId',
    ]);
  });

  it('when the recipient does not exist, then 404 USER_NOT_FOUND and nothing changes', async () => {
    const before = await eventCount(env);
    const reply = await tipper.as('POST', '/admin-tips', { body: tipBody(987_654_321) });
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('USER_NOT_FOUND');
    expect(await eventCount(env)).toBe(before);
  });

  it('when a request is retried with the same Idempotency-Key, then it answers the same and the user is tipped once', async () => {
    const user = await env.makeUser();
    const headers = { 'idempotency-key': `tip-${user.id}` };
    const first = await tipper.as('POST', '/admin-tips', { body: tipBody(user.id), headers });
    const events = await eventCount(env);
    const again = await Promise.all([1, 2, 3].map(() => tipper.as('POST', '/admin-tips', { body: tipBody(user.id), headers })));
    expect([first, ...again].map((r) => [r.status, r.body])).toEqual(Array(4).fill([201, { success: true }]));
    expect(await balanceOf(env, user.id)).toBe('0.5');
    expect(await eventCount(env)).toBe(events);
  });

  it('when the same Idempotency-Key comes with another amount, then 422 IDEMPOTENCY_KEY_REUSED and nothing changes', async () => {
    const user = await env.makeUser();
    const headers = { 'idempotency-key': `tip-diff-${user.id}` };
    await tipper.as('POST', '/admin-tips', { body: tipBody(user.id), headers });
    const reply = await tipper.as('POST', '/admin-tips', { body: tipBody(user.id, { amount: '0.7' }), headers });
    expect(reply.status).toBe(422);
    expect(reply.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await balanceOf(env, user.id)).toBe('0.5');
  });

  it('when two admins use the same Idempotency-Key, then both tips happen (keys are scoped to the admin)', async () => {
    const other = await signedInAdmin(env, ['admin-tips.tip']);
    const user = await env.makeUser();
    const headers = { 'idempotency-key': 'shared-key' };
    expect((await tipper.as('POST', '/admin-tips', { body: tipBody(user.id), headers })).status).toBe(201);
    expect((await other.as('POST', '/admin-tips', { body: tipBody(user.id), headers })).status).toBe(201);
    expect(await balanceOf(env, user.id)).toBe('1');
  });

  it('when the Idempotency-Key is empty or over 200 characters, then 400 naming the header', async () => {
    const user = await env.makeUser();
    for (const key of [' ', 'k'.repeat(201)]) {
      const reply = await tipper.as('POST', '/admin-tips', { body: tipBody(user.id), headers: { 'idempotency-key': key } });
      expect(reply.status).toBe(400);
      expect(reply.body.details[0].field).toBe('headers.idempotency-key');
    }
    expect(await balanceOf(env, user.id)).toBe('0');
  });
});

describe('POST /admin-tips/deduct-balance', () => {
  it('when an admin deducts part of a balance, then 201 {success: true}, the balance shrinks and the event records the admin', async () => {
    const user = await fundedUser(env, '2');
    const reply = await deducter.as('POST', '/admin-tips/deduct-balance', { body: tipBody(user.id, { amount: '0.75' }) });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({ success: true });
    expect(await balanceOf(env, user.id)).toBe('1.25');
    expect((await lastEvent(user.id)).data).toMatchObject({ amount: '0.75', currencyId: 'BTC', adminUserId: deducter.id });
    expect((await lastEvent(user.id)).type).toBe('AdminTipDeducted');
  });

  it('when the deduction exceeds the balance, then 409 INSUFFICIENT_FUNDS and nothing changes', async () => {
    const user = await fundedUser(env, '1');
    const before = await eventCount(env);
    const reply = await deducter.as('POST', '/admin-tips/deduct-balance', { body: tipBody(user.id, { amount: '1.00000001' }) });
    expect(reply.status).toBe(409);
    expect(reply.body.code).toBe('INSUFFICIENT_FUNDS');
    expect(await balanceOf(env, user.id)).toBe('1');
    expect(await eventCount(env)).toBe(before);
  });

  it.each(INVALID)('when the body has %s, then 400 VALIDATION_FAILED naming the field and nothing changes', async (_, over, field) => {
    const user = await fundedUser(env, '5');
    const before = await eventCount(env);
    const reply = await deducter.as('POST', '/admin-tips/deduct-balance', { body: tipBody(user.id, over) });
    expect(reply.status).toBe(400);
    expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await eventCount(env)).toBe(before);
    expect(await balanceOf(env, user.id)).toBe('5');
  });

  it('when a deduction is retried with the same Idempotency-Key, then the balance is reduced once', async () => {
    const user = await fundedUser(env, '3');
    const headers = { 'idempotency-key': `ded-${user.id}` };
    const replies = await Promise.all(
      [1, 2, 3].map(() => deducter.as('POST', '/admin-tips/deduct-balance', { body: tipBody(user.id, { amount: '1' }), headers })),
    );
    expect(replies.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(await balanceOf(env, user.id)).toBe('2');
  });

  it('when an admin holds only admin-tips.tip, then deducting is refused 403 and nothing changes', async () => {
    const user = await fundedUser(env, '1');
    const reply = await tipper.as('POST', '/admin-tips/deduct-balance', { body: tipBody(user.id) });
    expect(reply.status).toBe(403);
    expect(await balanceOf(env, user.id)).toBe('1');
  });
});
