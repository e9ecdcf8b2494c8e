import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListsEnv, type ListsEnv } from '../support/lists-seed.js';

let w: ListsEnv;
let whale: { id: number; username: string | null };
let minnow: { id: number; username: string | null };
const withdrawals: Record<string, string> = {};

beforeAll(async () => {
  w = await createListsEnv('short_user_vip');
  whale = await w.env.makeUser();
  minnow = await w.env.makeUser();
  await w.deposit(whale.id, '20000');
  await w.deposit(minnow.id, '100');
  // 10,000 USD wagered in settled bets: VIP level 2 (thresholds 1,000 / 10,000 / ...); 999.99 stays at level 0.
  await w.bet(whale.id, '10000', { payout: '0' });
  await w.bet(minnow.id, '99.99', { payout: '0' });
  withdrawals.whale = (await w.withdraw(whale.id, '5')).id;
  withdrawals.minnow = (await w.withdraw(minnow.id, '0.01')).id;
  await w.caughtUp();
});
afterAll(async () => {
  await w?.close();
});

describe('short users in back-office records', () => {
  it('when a user has wagered 10,000 USD, then bet rows show VIP level 2 and a small bettor level 0', async () => {
    const reply = await w.get('/bets?sortBy=CREATED_AT&sortOrder=asc');
    expect(reply.status).toBe(200);
    const levels = Object.fromEntries(
      reply.body.data.map((b: { userId: number; user: { vipLevel: number } }) => [b.userId, b.user.vipLevel]),
    );
    expect(levels).toEqual({ [whale.id]: 2, [minnow.id]: 0 });
  });

  it('when a VIP user withdraws, then the list and the approve answer show them at their VIP level', async () => {
    const reply = await w.get('/withdraw?sortBy=CREATED_AT&sortOrder=asc');
    expect(reply.status).toBe(200);
    const levels = Object.fromEntries(
      reply.body.data.map((x: { userId: number; user: { vipLevel: number } }) => [x.userId, x.user.vipLevel]),
    );
    expect(levels).toEqual({ [whale.id]: 2, [minnow.id]: 0 });
    const approved = await w.post('/withdraw/approve', { id: withdrawals.whale });
    expect(approved.status).toBe(201);
    expect(approved.body.user).toMatchObject({ id: whale.id, vipLevel: 2 });
  });
});
