import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WithdrawalStatus } from '../../src/domain/wallet/wallet.events.js';
import { createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { balanceOf, eventCount, pendingWithdrawal, signedInAdmin, trialBalance } from '../support/money-env.js';

let env: AuthEnv;
let admin: Awaited<ReturnType<typeof signedInAdmin>>;
/** The admin behind the set-up transitions (not the one under test). */
let setupAdmin: number;

beforeAll(async () => {
  env = await createAuthEnv('money_withdrawals');
  admin = await signedInAdmin(env, ['withdrawals.approve', 'withdrawals.reject', 'withdrawals.retry']);
  setupAdmin = (await env.makeUser({ roles: ['User', 'Admin'] })).id;
});
afterAll(async () => {
  await env?.close();
});

const ok = async <T>(result: Promise<{ _tag: 'Left'; left: unknown } | { _tag: 'Right'; right: T }>): Promise<T> => {
  const r = await result;
  if (r._tag === 'Left') throw new Error(JSON.stringify(r.left));
  return r.right;
};

/** A withdrawal of 1 BTC (from 10) brought into `status` through the ledger. */
const withdrawalIn = async (status: WithdrawalStatus) => {
  const { user, withdrawal } = await pendingWithdrawal(env);
  const id = withdrawal.id;
  if (status !== 'PENDING' && status !== 'DENIED') await ok(env.ledger.approveWithdrawal(id, setupAdmin));
  if (status === 'COMPLETE') await ok(env.ledger.completeWithdrawal(id, { txHash: `tx-${id}` }));
  if (status === 'FAILED') await ok(env.ledger.failWithdrawal(id, { failedReason: 'provider down' }));
  if (status === 'DENIED') await ok(env.ledger.rejectWithdrawal(id, setupAdmin, 'fraud'));
  return { user, id };
};

type Action = 'approve' | 'reject' | 'retry';
const act = (action: Action, id: string) =>
  admin.as('POST', `/withdraw/${action}`, { body: action === 'reject' ? { id, rejectReason: 'not allowed' } : { id } });

const STATES: readonly WithdrawalStatus[] = ['PENDING', 'CONFIRMED', 'COMPLETE', 'DENIED', 'FAILED'];
/** decisions.md, Money and ledger: the admin transitions; every other pair is 409. */
const ALLOWED: Record<Action, Partial<Record<WithdrawalStatus, WithdrawalStatus>>> = {
  approve: { PENDING: 'CONFIRMED' },
  reject: { PENDING: 'DENIED', FAILED: 'DENIED' },
  retry: { FAILED: 'CONFIRMED' },
};
const cases = (['approve', 'reject', 'retry'] as const).flatMap((action) =>
  STATES.map((from) => [action, from, ALLOWED[action][from]] as const),
);

describe('POST /withdraw/approve, /reject, /retry: the state machine', () => {
  it.each(cases.filter(([, , to]) => to !== undefined))(
    'when %s is called on a %s withdrawal, then 201 with the record in %s',
    async (action, from, to) => {
      const { user, id } = await withdrawalIn(from);
      const reply = await act(action, id);
      expect(reply.status).toBe(201);
      expect(reply.body).toMatchObject({
        id,
        status: to,
        userId: user.id,
        currencyId: 'BTC',
        amount: '1',
        user: { id: user.id, username: user.username },
      });
      expect(await balanceOf(env, user.id)).toBe(to === 'DENIED' ? '10' : '9');
    },
  );

  it.each(cases.filter(([, , to]) => to === undefined))(
    'when %s is called on a %s withdrawal, then 409 WITHDRAWAL_INVALID_STATE and nothing changes',
    async (action, from) => {
      const { user, id } = await withdrawalIn(from);
      const [balance, events] = [await balanceOf(env, user.id), await eventCount(env)];
      const reply = await act(action, id);
      expect(reply.status).toBe(409);
      expect(reply.body.code).toBe('WITHDRAWAL_INVALID_STATE');
      expect(await balanceOf(env, user.id)).toBe(balance);
      expect(await eventCount(env)).toBe(events);
    },
  );

  it.each(['approve', 'reject', 'retry'] as const)('when %s names an unknown withdrawal, then 404 WITHDRAWAL_NOT_FOUND', async (action) => {
    const reply = await act(action, '01900000-0000-7000-8000-000000000000');
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('WITHDRAWAL_NOT_FOUND');
  });
});

describe('POST /withdraw/approve', () => {
  it('when a PENDING withdrawal is approved, then the record carries every spec field and the approving admin', async () => {
    const { user, id } = await withdrawalIn('PENDING');
    const reply = await act('approve', id);
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      id,
      userId: user.id,
      currencyId: 'BTC',
      networkId: 'BTC',
      providerId: 'PROVIDER_B',
      amount: '1',
      usdAmount: expect.any(String),
      status: 'CONFIRMED',
      recipientAddress: 'bc1qexample',
      recipientMemo: null,
      transactionId: expect.any(String),
      txHash: null,
      rejectReason: null,
      failedReason: null,
      confirmedAt: expect.any(String),
      confirmedByUserId: admin.id,
      confirmations: expect.any(Number),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      user: { id: user.id, username: user.username, isPrivate: false, avatar: '', vipLevel: 0, isBanned: false },
      confirmedByUser: { id: admin.id, username: admin.username, isPrivate: false, avatar: '', vipLevel: 0, isBanned: false },
    });
    expect(new Date(reply.body.confirmedAt).toISOString()).toBe(reply.body.confirmedAt);
  });

  it.each([
    ['a missing id', {}, 'body.id'],
    ['an empty id', { id: '' }, 'body.id'],
    ['a numeric id', { id: 5 }, 'body.id'],
  ])('when the body has %s, then 400 VALIDATION_FAILED naming the field', async (_, body, field) => {
    const reply = await admin.as('POST', '/withdraw/approve', { body });
    expect(reply.status).toBe(400);
    expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});

describe('POST /withdraw/reject', () => {
  it('when a PENDING withdrawal is rejected, then 201 with DENIED and the reason, and the funds are back', async () => {
    const { user, id } = await withdrawalIn('PENDING');
    const reply = await admin.as('POST', '/withdraw/reject', { body: { id, rejectReason: 'address on a sanctions list' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ id, status: 'DENIED', rejectReason: 'address on a sanctions list' });
    expect(await balanceOf(env, user.id)).toBe('10');
  });

  it.each([
    ['a missing rejectReason', { rejectReason: undefined }, 'body.rejectReason'],
    ['an empty rejectReason', { rejectReason: '  ' }, 'body.rejectReason'],
    ['a missing id', { id: undefined }, 'body.id'],
  ])('when the body has %s, then 400 VALIDATION_FAILED naming the field and the withdrawal stays PENDING', async (_, over, field) => {
    const { user, id } = await withdrawalIn('PENDING');
    const events = await eventCount(env);
    const reply = await admin.as('POST', '/withdraw/reject', { body: { id, rejectReason: 'r', ...over } });
    expect(reply.status).toBe(400);
    expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await eventCount(env)).toBe(events);
    expect(await balanceOf(env, user.id)).toBe('9');
  });
});

describe('POST /withdraw/retry', () => {
  it('when a FAILED withdrawal is retried, then 201 CONFIRMED by the retrying admin, funds still held', async () => {
    const { user, id } = await withdrawalIn('FAILED');
    const reply = await act('retry', id);
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ id, status: 'CONFIRMED', confirmedByUserId: admin.id });
    expect(await balanceOf(env, user.id)).toBe('9');
  });
});

describe('POST /withdraw/approve and /withdraw/reject under concurrency', () => {
  it('when 50 approve and reject calls race on one withdrawal, then exactly one wins (one 201, 49 × 409) and the ledger balances', async () => {
    const projector = env.startProjector();
    const { user, id } = await withdrawalIn('PENDING');
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => act(i % 2 === 0 ? 'approve' : 'reject', id)));
    const won = replies.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    expect(replies.filter((r) => r.status === 409 && r.body.code === 'WITHDRAWAL_INVALID_STATE')).toHaveLength(49);
    const status = won[0]!.body.status as string;
    expect(await balanceOf(env, user.id)).toBe(status === 'DENIED' ? '10' : '9');

    await projector.waitFor(env.ledger.internals.handler.lastPosition());
    const projected = await env.pool.query<{ wallet: string; account: string }>(
      `SELECT trim_scale(w.balance)::text AS wallet, trim_scale(a.balance)::text AS account FROM wallet_balances w
       JOIN account_balances a ON a.account = 'user:' || w.user_id AND a.currency_id = w.currency_id
       WHERE w.user_id = $1 AND w.currency_id = 'BTC'`,
      [user.id],
    );
    expect(projected.rows[0]).toEqual({ wallet: await balanceOf(env, user.id), account: await balanceOf(env, user.id) });
    const trial = await trialBalance(env);
    expect(Object.values(trial).every((sum) => Number(sum) === 0)).toBe(true);
    expect(trial.BTC).toBeDefined();
    const row = await env.pool.query<{ status: string }>('SELECT status FROM withdrawals WHERE id = $1', [id]);
    expect(row.rows[0]?.status).toBe(status);
  });
});
