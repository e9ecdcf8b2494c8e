import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../support/auth-env.js';
import { createListsEnv, type ListsEnv } from '../support/lists-seed.js';

let w: ListsEnv;
let owner: { id: number };
let vipOwner: { id: number };
const referred: Record<'ann' | 'bob' | 'cid', number> = { ann: 0, bob: 0, cid: 0 };
const fieldsOf = (body: { details?: { field: string }[] }) => (body.details ?? []).map((d) => d.field);

/** Signs a user up with a referrer code, as the public sign-up does (the referral resolves in a projection). */
const signUpWith = async (referrerCode: string | null, username = unique('r')): Promise<number> => {
  const created = await w.env.users.register({
    email: `${unique('e')}@example.test`,
    username,
    passwordHash: 'unused',
    country: 'DE',
    referrerCode,
    marketingOptIn: false,
    provider: 'password',
    roles: ['User'],
    registration: { ip: null, userAgent: null, country: null, referrer: null },
  });
  if (created._tag === 'Left') throw new Error(created.left._tag);
  return created.right.userId;
};

beforeAll(async () => {
  w = await createListsEnv('affiliates');
  owner = await w.env.makeUser();
  vipOwner = await w.env.makeUser();
  await w.env.pool.query(
    `INSERT INTO affiliate_codes (code, user_id, created_at) VALUES ('spring', $1, '2026-01-01'), ('summer', $1, '2026-02-01'), ('vip', $2, '2026-01-01')`,
    [owner.id, vipOwner.id],
  );
  // The VIP owner's floor is level 3 (10 %) although their referred users have wagered next to nothing.
  await w.env.users.execute(vipOwner.id, { type: 'UpdateProfile', data: { changes: { customMinAffiliateLevel: 3 } } }, w.superadmin.id);
  referred.ann = await signUpWith('SPRING', 'ann' + unique(''));
  referred.bob = await signUpWith('summer', 'bob' + unique(''));
  referred.cid = await signUpWith('vip');
  await signUpWith('no-such-code');
  await w.deposit(referred.ann, '1000');
  await w.bet(referred.ann, '100');
  await w.bet(referred.ann, '50', { end: 'ROLLBACK' });
  await w.deposit(referred.bob, '100');
  await w.bet(referred.bob, '20', { payout: '40' });
  await w.bet(referred.bob, '5', { end: 'CREATED' });
  await w.deposit(referred.cid, '100');
  await w.bet(referred.cid, '30');
  await w.caughtUp();
});
afterAll(async () => {
  await w?.close();
});

describe('GET /affiliate/levels', () => {
  it('when called, then 200 and the five seeded levels in ascending thresholds', async () => {
    const reply = await w.get('/affiliate/levels');
    expect(reply.status).toBe(200);
    expect(reply.body).toHaveLength(5);
    expect(reply.body[0]).toEqual({ id: 1, name: 'Bronze', minWageredUsdAmount: '0', commission: '0.05', minReferralCountForClaim: 1 });
    expect(reply.body.map((l: { minWageredUsdAmount: string }) => l.minWageredUsdAmount)).toEqual([
      '0',
      '10000',
      '50000',
      '250000',
      '1000000',
    ]);
  });
});

describe('POST /affiliate/users', () => {
  const body = (over: Record<string, unknown> = {}) => ({
    sortBy: 'CREATED_AT',
    sortOrder: 'asc',
    where: { ownerId: owner.id },
    page: 1,
    take: 20,
    ...over,
  });

  it('when an owner has referred users, then 201 and a page of them with campaign, wagered USD and accrued commission', async () => {
    const reply = await w.post('/affiliate/users', body());
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ take: 20, page: 1, total: 2, totalPages: 1 });
    // Settled stakes only (the rolled-back 50 and the open 5 never count), at level 1 (5 %).
    expect(reply.body.data).toEqual([
      {
        id: referred.ann,
        username: expect.stringMatching(/^ann/),
        campaign: 'SPRING',
        createdAt: expect.any(String),
        wageredUsdAmount: '100',
        commission: '5',
      },
      {
        id: referred.bob,
        username: expect.stringMatching(/^bob/),
        campaign: 'summer',
        createdAt: expect.any(String),
        wageredUsdAmount: '20',
        commission: '1',
      },
    ]);
  });

  it.each([
    ['WAGERED_AMOUNT', 'asc', ['bob', 'ann']],
    ['WAGERED_AMOUNT', 'desc', ['ann', 'bob']],
    ['CAMPAIGN', 'asc', ['ann', 'bob']],
    ['CREATED_AT', 'desc', ['bob', 'ann']],
  ] as const)('when sorted by %s %s, then in that order', async (sortBy, sortOrder, order) => {
    const reply = await w.post('/affiliate/users', body({ sortBy, sortOrder }));
    expect(reply.body.data.map((u: { id: number }) => u.id)).toEqual(order.map((n) => referred[n]));
  });

  it('when paged with take 1, then one user per page and the total of all', async () => {
    const reply = await w.post('/affiliate/users', body({ page: 2, take: 1 }));
    expect(reply.body).toEqual(expect.objectContaining({ take: 1, page: 2, total: 2, totalPages: 2 }));
    expect(reply.body.data.map((u: { id: number }) => u.id)).toEqual([referred.bob]);
  });

  it("when the owner has a customMinAffiliateLevel above their earned level, then commission accrues at the floor's rate", async () => {
    const reply = await w.post('/affiliate/users', body({ where: { ownerId: vipOwner.id } }));
    expect(reply.body.data).toEqual([
      expect.objectContaining({ id: referred.cid, campaign: 'vip', wageredUsdAmount: '30', commission: '3' }),
    ]);
  });

  it.each([
    ['a take above 20', { take: 21 }, 'body.take'],
    ['a missing sortBy', { sortBy: undefined }, 'body.sortBy'],
    ['an unknown sortBy', { sortBy: 'NAME' }, 'body.sortBy'],
    ['a missing page', { page: undefined }, 'body.page'],
    ['a missing ownerId', { where: {} }, 'body.where.ownerId'],
  ])('when %s, then 400 VALIDATION_FAILED naming the field', async (_name, over, field) => {
    const reply = await w.post('/affiliate/users', body(over));
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(fieldsOf(reply.body)).toContain(field);
  });
});

describe('POST /affiliate/find-one', () => {
  it('when the user owns codes, then 201 and the codes with their referral counts, the level and the totals', async () => {
    const reply = await w.post('/affiliate/find-one', { where: { userId: owner.id } });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      userId: owner.id,
      affiliateCodes: [
        { id: 'spring', usersCount: 1, createdAt: '2026-01-01T00:00:00.000Z' },
        { id: 'summer', usersCount: 1, createdAt: '2026-02-01T00:00:00.000Z' },
      ],
      level: { id: 1, name: 'Bronze', minWageredUsdAmount: '0', commission: '0.05', minReferralCountForClaim: 1 },
      customMinAffiliateLevel: null,
      referralCount: 2,
      totalWageredUsdAmount: '120',
      commissionEarnedUsdAmount: '6',
      commissionClaimedUsdAmount: '0',
      commissionClaimableUsdAmount: '6',
      canClaim: true,
    });
  });

  it('when the owner has a customMinAffiliateLevel, then that level', async () => {
    const reply = await w.post('/affiliate/find-one', { where: { userId: vipOwner.id } });
    expect(reply.body).toMatchObject({ level: { id: 3, name: 'Gold' }, customMinAffiliateLevel: 3, referralCount: 1, canClaim: false });
  });

  it('when the user is unknown, then 404 USER_NOT_FOUND; a malformed id is 400', async () => {
    expect((await w.post('/affiliate/find-one', { where: { userId: 99_999_999 } })).body.code).toBe('USER_NOT_FOUND');
    const bad = await w.post('/affiliate/find-one', { where: { userId: 'x' } });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toContain('body.where.userId');
  });
});

describe('POST /affiliate/find-one-stats', () => {
  it('when the user has referrals, then 201 and referrals, wagered USD and commission earned and claimed', async () => {
    const reply = await w.post('/affiliate/find-one-stats', { where: { userId: owner.id } });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      userId: owner.id,
      levelId: 1,
      referralCount: 2,
      activeReferralCount: 2,
      totalWageredUsdAmount: '120',
      commissionEarnedUsdAmount: '6',
      commissionClaimedUsdAmount: '0',
      commissionClaimableUsdAmount: '6',
    });
  });

  it('when the user referred nobody, then zeros; a missing where is 400', async () => {
    const reply = await w.post('/affiliate/find-one-stats', { where: { userId: referred.ann } });
    expect(reply.body).toMatchObject({ referralCount: 0, totalWageredUsdAmount: '0', commissionEarnedUsdAmount: '0', levelId: 1 });
    const bad = await w.post('/affiliate/find-one-stats', {});
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toContain('body.where');
  });
});

describe('claimed commission (POST /internal/affiliate-claims, AffiliateCommissionClaimed)', () => {
  it('when the owner claims part of the commission, then find-one-stats counts it as claimed and the rest stays claimable', async () => {
    // vipOwner earned 3 USD (10 % of cid's 30).
    const claimed = await w.ledger.claimAffiliateCommission({
      claimId: unique('claim'),
      userId: vipOwner.id,
      currencyId: 'USDT',
      amount: '1.25',
      usdAmount: '1.25',
    });
    expect(claimed._tag).toBe('Right');
    await w.caughtUp();
    const reply = await w.post('/affiliate/find-one-stats', { where: { userId: vipOwner.id } });
    expect(reply.body).toMatchObject({
      commissionEarnedUsdAmount: '3',
      commissionClaimedUsdAmount: '1.25',
      commissionClaimableUsdAmount: '1.75',
    });
    const find = await w.post('/affiliate/find-one', { where: { userId: vipOwner.id } });
    expect(find.body).toMatchObject({ commissionClaimedUsdAmount: '1.25', commissionClaimableUsdAmount: '1.75' });
  });
});
