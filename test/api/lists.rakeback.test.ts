import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListsEnv, type ListsEnv } from '../support/lists-seed.js';

let w: ListsEnv;
let lea: { id: number };
const AT = '2026-03-02T10:00:00.000Z';
const fieldsOf = (body: { details?: { field: string }[] }) => (body.details ?? []).map((d) => d.field);

beforeAll(async () => {
  w = await createListsEnv('lists_rakeback');
  lea = await w.env.makeUser();
  w.at(AT);
  await w.deposit(lea.id, '100');
  await w.deposit(lea.id, '1', { currencyId: 'BTC', usdAmount: '90000' });
  await w.bet(lea.id, '10', { payout: '0' });
  await w.bet(lea.id, '30', { payout: '60' });
  await w.bet(lea.id, '7', { end: 'ROLLBACK' });
  await w.bet(lea.id, '3', { end: 'ERROR' });
  await w.bet(lea.id, '5', { end: 'CREATED' });
  const placed = await w.ledger.placeBet({
    id: 'btc-bet-1',
    userId: lea.id,
    roundId: 'r',
    gameId: 1,
    gameIdentity: { name: 'Dice', slug: 'dice', type: 'slots', provider: { name: 'Acme' } },
    currencyId: 'BTC',
    amount: '0.5',
    usdAmount: '45000',
  });
  expect(placed._tag).toBe('Right');
  await w.ledger.settleBet('btc-bet-1', { payout: '0' });
  await w.caughtUp();
});
afterAll(async () => {
  await w?.close();
});

const record = (currencyId: string, instant: string, periodic: string) => ({
  userId: lea.id,
  currencyId,
  updatedAt: AT,
  instantClaimable: instant,
  instantTotalClaimed: '0',
  dailyClaimable: '0',
  dailyTotalClaimed: '0',
  dailyAccumulated: periodic,
  weeklyClaimable: '0',
  weeklyTotalClaimed: '0',
  weeklyAccumulated: periodic,
  monthlyClaimable: '0',
  monthlyTotalClaimed: '0',
  monthlyAccumulated: periodic,
});

describe('POST /rakeback/find-many', () => {
  it('when a user has settled bets in two currencies, then 201 and one record per currency accrued from settled stakes only', async () => {
    const reply = await w.post('/rakeback/find-many', { where: { userId: lea.id } });
    expect(reply.status).toBe(201);
    // DBC: settled stakes 10 + 30 = 40 (rolled back, errored and open bets never accrue); BTC: 0.5.
    expect(reply.body).toEqual([record('BTC', '0.0005', '0.00025'), record('DBC', '0.04', '0.02')]);
  });

  it('when filtered by currency, then only that record; a user without bets has none', async () => {
    expect((await w.post('/rakeback/find-many', { where: { userId: lea.id, currencyId: 'DBC' } })).body).toEqual([
      record('DBC', '0.04', '0.02'),
    ]);
    expect((await w.post('/rakeback/find-many', { where: { userId: w.superadmin.id } })).body).toEqual([]);
  });

  it.each([
    ['missing userId', { where: {} }, 'body.where.userId'],
    ['missing where', {}, 'body.where'],
    ['a currency outside the request set', { where: { userId: 1, currencyId: 'PLATFORM_TOKEN' } }, 'body.where.currencyId'],
  ])('when %s, then 400 VALIDATION_FAILED naming the field', async (_name, body, field) => {
    const reply = await w.post('/rakeback/find-many', body);
    expect(reply.status).toBe(400);
    expect(fieldsOf(reply.body)).toContain(field);
  });
});
