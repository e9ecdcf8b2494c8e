import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USD_SCALE } from '../../src/domain/money/currency.js';
import { formatDecimal, parseDecimal } from '../../src/domain/money/money.js';
import { bearer, call } from '../support/auth-env.js';
import { createPrizes } from '../../src/leaderboards/leaderboard.prizes.js';
import { runLeaderboardTick } from '../../src/leaderboards/leaderboard.scheduler.js';
import { createLeaderboardsEnv, DAY, type LeaderboardsEnv } from '../support/leaderboards-env.js';

let w: LeaderboardsEnv;
let boardId = '';
const ids = { first: 0, second: 0, third: 0, loser: 0, outsider: 0 };

let token = '';
const give = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(w.env.adminUrl, 'POST', '/leaderboards/give-prize', {
    body: { currency: 'DBC', leaderboardId: boardId, ...body },
    headers: { ...bearer(token), ...headers },
  });
const member = async (userId: number) => (await w.get(`/leaderboards/${boardId}/users/${userId}`)).body;
const balance = async (userId: number, currencyId = 'DBC') =>
  (await w.env.ledger.balances(userId)).find((b) => b.currencyId === currencyId)?.balance ?? '0';
/** The ledger's prize postings to the user (from the wallet stream's LeaderboardPrizeCredited events), per currency. */
const prizePostings = async (userId: number): Promise<Record<string, string>> => {
  const { rows } = await w.env.pool.query<{ data: { postings: { account: string; currencyId: string; amount: string }[] } }>(
    `SELECT data FROM events WHERE stream_id = $1 AND type = 'LeaderboardPrizeCredited'`,
    [`wallet-${userId}`],
  );
  const sums: Record<string, bigint> = {};
  for (const p of rows.flatMap((r) => r.data.postings)) {
    if (p.account === `user:${userId}`) sums[p.currencyId] = (sums[p.currencyId] ?? 0n) + (parseDecimal(p.amount, 18) as bigint);
    else expect(p.account).toBe('house:prizes');
  }
  return Object.fromEntries(Object.entries(sums).map(([c, v]) => [c, formatDecimal(v, 18)]));
};

beforeAll(async () => {
  w = await createLeaderboardsEnv('lb_give_prize');
  await w.enable('DAILY');
  ids.first = (await w.player(['300'])).id;
  ids.second = (await w.player(['200'])).id;
  ids.third = (await w.player(['100'])).id;
  ids.loser = (await w.player(['50'])).id;
  ids.outsider = (await w.env.makeUser()).id;
  await w.caughtUp();
  await w.tick(`${DAY}T06:00:00.000Z`);
  await w.tick('2031-03-11T00:05:00.000Z');
  boardId = (await w.boards('?status=SETTLEMENT')).data[0]!.id;
  token = await w.tokenFor({ roles: ['User', 'Admin'], permissions: ['leaderboard.give-prize', 'leaderboard.view'] });
});
afterAll(async () => {
  await w?.close();
});

describe('POST /leaderboards/give-prize', () => {
  it('when part of a prize is given, then 201, the wallet gets that USD in the currency and the rest remains', async () => {
    const reply = await give({ userId: ids.second, usdAmount: '20' });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      userId: ids.second,
      position: 2,
      remainingUsdPrize: '30',
      isPrizeReceived: false,
      isWinner: true,
      payment: { currencyId: 'DBC', amount: '20', usdAmount: '20', status: 'PAID', operationKey: expect.any(String) },
    });
    expect(await balance(ids.second)).toBe('99820'); // 100000 deposited - 200 wagered + 20
    expect(await prizePostings(ids.second)).toEqual({ DBC: '20' });
  });

  it('when the full remaining prize is given, then it pays exactly what remained and the prize is received; a second time is 409 PRIZE_ALREADY_RECEIVED', async () => {
    const reply = await give({ userId: ids.second, fullUsdAmount: true });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ remainingUsdPrize: '0', isPrizeReceived: true, payment: { amount: '30', usdAmount: '30' } });
    const again = await give({ userId: ids.second, fullUsdAmount: true });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('PRIZE_ALREADY_RECEIVED');
    expect(await prizePostings(ids.second)).toEqual({ DBC: '50' });
  });

  it('when more than remains is asked, then 409 PRIZE_EXCEEDS_REMAINING and nothing is paid', async () => {
    const reply = await give({ userId: ids.third, usdAmount: '25.00000001' });
    expect(reply.status).toBe(409);
    expect(reply.body.code).toBe('PRIZE_EXCEEDS_REMAINING');
    expect((await member(ids.third)).remainingUsdPrize).toBe('25');
    expect(await prizePostings(ids.third)).toEqual({});
  });

  it('when paid in another currency, then the USD amount is converted at the rate table and rounded down to the currency scale', async () => {
    const reply = await give({ userId: ids.third, usdAmount: '10', currency: 'BTC' });
    expect(reply.status).toBe(201);
    expect(reply.body.payment).toMatchObject({ currencyId: 'BTC', amount: '0.00015384', usdAmount: '10' }); // 10 / 65000 = 0.000153846...
    expect(reply.body.remainingUsdPrize).toBe('15');
    expect(await balance(ids.third, 'BTC')).toBe('0.00015384');
  });

  it('when the same Idempotency-Key is sent again, then the first payment is answered and nothing more is paid; with another amount, 422', async () => {
    const first = await give({ userId: ids.third, usdAmount: '5' }, { 'idempotency-key': 'prize-k1' });
    const second = await give({ userId: ids.third, usdAmount: '5' }, { 'idempotency-key': 'prize-k1' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.payment).toEqual(first.body.payment);
    expect(second.body.remainingUsdPrize).toBe('10');
    const other = await give({ userId: ids.third, usdAmount: '6' }, { 'idempotency-key': 'prize-k1' });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await prizePostings(ids.third)).toEqual({ DBC: '5', BTC: '0.00015384' });
  });

  it.each([
    ['a malformed decimal', { usdAmount: '1.2.3' }, 'body.usdAmount'],
    ['a negative amount', { usdAmount: '-5' }, 'body.usdAmount'],
    ['a zero amount', { usdAmount: '0' }, 'body.usdAmount'],
    ['more than 8 decimals', { usdAmount: '0.000000001' }, 'body.usdAmount'],
    ['neither usdAmount nor fullUsdAmount', {}, 'body.usdAmount'],
    ['an unknown currency', { currency: 'PLATFORM_TOKEN', usdAmount: '1' }, 'body.currency'],
    ['a currency without a rate', { currency: 'TETH', usdAmount: '1' }, 'body.currency'],
    ['no leaderboardId', { leaderboardId: undefined, usdAmount: '1' }, 'body.leaderboardId'],
  ])('when the body has %s, then 400 VALIDATION_FAILED naming the field and nothing is paid', async (_label, over, field) => {
    const before = await member(ids.third);
    const reply = await give({ userId: ids.third, ...over });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(reply.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await member(ids.third)).toEqual(before);
  });

  it('when the leaderboard or the user on it does not exist, then 404', async () => {
    expect((await give({ userId: ids.third, usdAmount: '1', leaderboardId: 'nope' })).body.code).toBe('LEADERBOARD_NOT_FOUND');
    expect((await give({ userId: ids.outsider, usdAmount: '1' })).body.code).toBe('LEADERBOARD_USER_NOT_FOUND');
  });

  it('when the user is no winner, then 409 LEADERBOARD_USER_NOT_WINNER', async () => {
    expect((await give({ userId: ids.loser, fullUsdAmount: true })).body.code).toBe('LEADERBOARD_USER_NOT_WINNER');
  });

  it('when 50 give-prize calls race for one prize, then exactly the prize is paid, never more: wallet, ledger postings and remaining agree', async () => {
    const before = await balance(ids.first);
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => give({ userId: ids.first, ...(i % 2 === 0 ? { usdAmount: '7' } : { fullUsdAmount: true }) })),
    );
    const ok = replies.filter((r) => r.status === 201);
    expect(replies.filter((r) => r.status !== 201).every((r) => r.status === 409)).toBe(true);
    const paid = ok.reduce((sum, r) => sum + (parseDecimal(r.body.payment.usdAmount, USD_SCALE) as bigint), 0n);
    const remaining = parseDecimal((await member(ids.first)).remainingUsdPrize, USD_SCALE) as bigint;
    // Half the calls ask for the full remainder, so the whole prize goes out, and not a cent more.
    expect(paid).toBe(100n * 10n ** 8n);
    expect(remaining).toBe(0n);
    expect((await member(ids.first)).isPrizeReceived).toBe(true);
    const gained = (parseDecimal(await balance(ids.first), 2) as bigint) - (parseDecimal(before, 2) as bigint);
    expect(formatDecimal(gained, 2)).toBe(formatDecimal(paid, USD_SCALE));
    expect(await prizePostings(ids.first)).toEqual({ DBC: formatDecimal(paid, USD_SCALE) });
  });
});

describe('give-prize after a crash', () => {
  const crashing = (creditFirst: boolean) =>
    createPrizes({
      pool: w.env.pool,
      ledger: {
        ...w.env.ledger,
        creditPrize: async (input) => {
          if (creditFirst) await w.env.ledger.creditPrize(input);
          throw new Error('process died');
        },
      },
    });
  const redrive = () => runLeaderboardTick({ pool: w.env.pool, ledger: w.env.ledger, now: new Date(Date.now() + 120_000) });

  it('when a process dies between the reservation and the credit, then the prize stays reserved and the scheduler pays it once with the same operation key', async () => {
    const input = { adminUserId: 1, leaderboardId: boardId, userId: ids.third, currency: 'DBC' as const, usdAmount: '3' };
    await expect(crashing(false).give(input)).rejects.toThrow('process died');
    expect((await member(ids.third)).remainingUsdPrize).toBe('7');
    expect((await prizePostings(ids.third)).DBC).toBe('5');
    expect((await redrive()).redriven).toBe(1);
    expect((await redrive()).redriven).toBe(0);
    expect((await prizePostings(ids.third)).DBC).toBe('8');
  });

  it('when a process dies after the credit but before marking it paid, then the re-drive does not pay twice', async () => {
    const input = { adminUserId: 1, leaderboardId: boardId, userId: ids.third, currency: 'DBC' as const, usdAmount: '2' };
    await expect(crashing(true).give(input)).rejects.toThrow('process died');
    expect((await prizePostings(ids.third)).DBC).toBe('10');
    expect((await redrive()).redriven).toBe(1);
    expect((await prizePostings(ids.third)).DBC).toBe('10');
    expect((await member(ids.third)).remainingUsdPrize).toBe('5');
  });
});
