import { createPersonKeys } from '../../src/erasure/person-keys.js';
import { withPersonalData } from '../../src/erasure/personal-store.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AVATAR_URL } from '../../src/domain/user/vip.js';
import { bearer, call, GOOD_CAPTCHA } from '../support/auth-env.js';
import { createListsEnv, type ListsEnv } from '../support/lists-seed.js';

let w: ListsEnv;
let editor = '';
beforeAll(async () => {
  w = await createListsEnv('users_admin');
  editor = await w.tokenFor({ roles: ['User', 'Admin'], permissions: ['user.edit', 'user.view'] });
}, 60_000);
afterAll(async () => {
  await w?.close();
});

const patch = (path: string, body?: unknown, as = editor) =>
  call(w.env.adminUrl, 'PATCH', path, { headers: bearer(as), ...(body === undefined ? {} : { body }) });
const view = async (id: number) => (await w.get(`/user/${id}`)).body;
/** The user's events as the application reads them: personal fields decrypted (docs/compliance-erasure.md). */
const eventsOf = async (id: number) =>
  (await withPersonalData(w.env.store, createPersonKeys(w.env.pool)).readStream(`user-${id}`)).map((e) => ({
    type: e.type,
    data: e.data as Record<string, unknown>,
  }));
/** User events do not move the ledger: a tiny deposit afterwards gives the projector a position to catch up to. */
const synced = async () => {
  const someone = await w.env.makeUser();
  await w.deposit(someone.id, '1');
  await w.caughtUp();
};

describe('GET /user/:id', () => {
  it('when an Admin with user.view reads a user, then the full user record with roles, permissions, notes, USD balance and stats', async () => {
    const user = await w.env.makeUser();
    await w.deposit(user.id, '1200');
    await w.bet(user.id, '1000', { payout: '400' });
    await w.caughtUp();
    const body = await view(user.id);
    expect(body).toMatchObject({
      id: user.id,
      username: user.username,
      email: user.email,
      exp: '1000',
      vipLevel: 1,
      mfaSecret: null,
      kyc: null,
      roles: [{ role: 'User', userId: user.id }],
      permissions: [],
      notes: [],
      avatar: DEFAULT_AVATAR_URL,
      isBanned: false,
      canUseChat: true,
      usdBalance: { total: '600' },
      statsUsd: { totalWagered: '1000', totalPayouts: '400', ggr: '600', totalLoss: '600', ltv: '1200', totalBets: 1 },
    });
  });

  it('when users signed up through Steam and Google, then gamePlatformId and identityProviderEmail show, live and in the list', async () => {
    const signUp = async (identity: { provider: 'steam' | 'google'; subject: string; email: string | null }) => {
      const created = await w.env.users.register({
        email: null,
        username: null,
        passwordHash: null,
        country: null,
        referrerCode: null,
        marketingOptIn: false,
        provider: identity.provider,
        registration: { ip: null, userAgent: null, country: null, referrer: null },
        identity,
      });
      if (created._tag === 'Left') throw new Error(created.left._tag);
      return created.right.userId;
    };
    const steam = await signUp({ provider: 'steam', subject: '76561198000000001', email: null });
    const google = await signUp({ provider: 'google', subject: 'g-sub-1', email: 'someone@gmail.test' });
    expect(await view(steam)).toMatchObject({ gamePlatformId: '76561198000000001', identityProviderEmail: null, username: null });
    expect(await view(google)).toMatchObject({ gamePlatformId: null, identityProviderEmail: 'someone@gmail.test' });
    await synced();
    const listed = (await w.post('/user/all', { sortBy: 'id', sortOrder: 'asc', search: String(steam) })).body.data;
    expect(listed.find((x: { id: number }) => x.id === steam)).toMatchObject({ gamePlatformId: '76561198000000001' });
    const listedGoogle = (await w.post('/user/all', { sortBy: 'id', sortOrder: 'asc', search: String(google) })).body.data;
    expect(listedGoogle.find((x: { id: number }) => x.id === google)).toMatchObject({ identityProviderEmail: 'someone@gmail.test' });
  });

  it('when the user does not exist, then 404 USER_NOT_FOUND', async () => {
    expect((await w.get('/user/987654321')).body.code).toBe('USER_NOT_FOUND');
  });
});

describe('PATCH /user/:id', () => {
  it('when an Admin with user.edit changes the username and flags, then 200 with the user, and the events record the acting admin', async () => {
    const user = await w.env.makeUser();
    const link = 'https://steamcommunity.com/tradeoffer/new/?partner=123456&token=aB3_-xYz';
    const reply = await patch(`/user/${user.id}`, {
      username: 'Renamed1',
      isStaff: true,
      isVideoCreator: true,
      customMinAffiliateLevel: 3,
      isTest: true,
      isStreamer: true,
      canUseChat: false,
      isPrivate: true,
      isStreamerMode: true,
      isEmailNotificationsEnabled: false,
      gamePlatformTradeLink: link,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: user.id,
      username: 'Renamed1',
      isStaff: true,
      isVideoCreator: true,
      customMinAffiliateLevel: 3,
      isTest: true,
      isStreamer: true,
      canUseChat: false,
      isPrivate: true,
      isStreamerMode: true,
      isEmailNotificationsEnabled: false,
      gamePlatformTradeLink: link,
    });
    const events = await eventsOf(user.id);
    const adminUserId = events.find((e) => e.type === 'ProfileUpdated')?.data.adminUserId;
    expect(typeof adminUserId).toBe('number');
    expect(adminUserId).not.toBe(user.id);
    expect(events.find((e) => e.type === 'UsernameSet')?.data).toMatchObject({ username: 'Renamed1', adminUserId });
    expect(await w.env.users.idByKey('username', 'renamed1')).toBe(user.id);
    expect(await w.env.users.idByKey('username', user.username!)).toBeUndefined();
    await synced();
    const listed = await w.get('/user/all?sortBy=id&sortOrder=asc&search=renamed1');
    expect(listed.body.data[0]).toMatchObject({
      username: 'Renamed1',
      isStaff: true,
      gamePlatformTradeLink: link,
      customMinAffiliateLevel: 3,
    });
  });

  it('when the username is taken by another user in another case, then 409 and nothing changed', async () => {
    const [taker, user] = [await w.env.makeUser({ username: 'TakenName' }), await w.env.makeUser()];
    const before = await eventsOf(user.id);
    const reply = await patch(`/user/${user.id}`, { username: 'takenname', isStaff: true });
    expect(reply.status).toBe(409);
    expect(await eventsOf(user.id)).toEqual(before);
    expect(await w.env.users.idByKey('username', 'takenname')).toBe(taker.id);
  });

  it.each([
    [{ username: 'ab' }, 'body.username'],
    [{ username: 'abcdefghijklmnopq' }, 'body.username'],
    [{ username: 'bad_name!' }, 'body.username'],
    [{ gamePlatformTradeLink: 'https://steamcommunity.com/tradeoffer/new/?partner=1&token=short' }, 'body.gamePlatformTradeLink'],
    [{ gamePlatformTradeLink: 'http://evil.test/tradeoffer/new/?partner=1&token=abcdefgh' }, 'body.gamePlatformTradeLink'],
    [{ isStaff: 'yes' }, 'body.isStaff'],
    [{ customMinAffiliateLevel: 'high' }, 'body.customMinAffiliateLevel'],
    [{ isAdmin: true }, 'body'],
  ])('when the body is %j, then 400 naming %s and nothing changed', async (body, field) => {
    const user = await w.env.makeUser();
    const before = await eventsOf(user.id);
    const reply = await patch(`/user/${user.id}`, { isStreamer: true, ...body });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(reply.body.details.map((x: { field: string }) => x.field)).toContain(field);
    expect(await eventsOf(user.id)).toEqual(before);
  });

  it('when the user does not exist, then 404; without user.edit, then 403', async () => {
    expect((await patch('/user/987654321', { isTest: true })).status).toBe(404);
    const viewer = await w.tokenFor({ roles: ['User', 'Admin'], permissions: ['user.view'] });
    expect((await patch(`/user/${(await w.env.makeUser()).id}`, { isTest: true }, viewer)).status).toBe(403);
  });
});

describe('PATCH /user/:id/avatar/reset', () => {
  it("when an Admin resets a user's avatar, then 200 with the default avatar URL, recorded with the acting admin", async () => {
    const user = await w.env.makeUser();
    await w.env.users.execute(user.id, { type: 'UpdateProfile', data: { changes: { avatar: 'https://cdn.test/me.png' } } }, null);
    expect((await view(user.id)).avatar).toBe('https://cdn.test/me.png');
    const reply = await patch(`/user/${user.id}/avatar/reset`);
    expect(reply.status).toBe(200);
    expect(reply.body).toBe(DEFAULT_AVATAR_URL);
    expect((await view(user.id)).avatar).toBe(DEFAULT_AVATAR_URL);
    const last = (await eventsOf(user.id)).at(-1)!;
    expect(last).toMatchObject({ type: 'ProfileUpdated', data: { changes: { avatar: DEFAULT_AVATAR_URL } } });
    expect(typeof last.data.adminUserId).toBe('number');
  });

  it('when the user does not exist, then 404', async () => {
    expect((await patch('/user/987654321/avatar/reset')).status).toBe(404);
  });
});

describe('POST /user/admin-user', () => {
  it('when a SuperAdmin creates an admin, then 201 with role Admin and the permissions, and the admin can sign in', async () => {
    const reply = await w.post('/user/admin-user', {
      username: 'NewAdmin1',
      password: 'a long admin password 7',
      permissions: ['user.view', 'deposits.view'],
      email: 'newadmin1@example.test',
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      username: 'NewAdmin1',
      email: 'newadmin1@example.test',
      permissions: ['user.view', 'deposits.view'],
      mfaSecret: null,
    });
    expect(reply.body.roles.map((r: { role: string }) => r.role)).toEqual(['User', 'Admin']);
    expect((await eventsOf(reply.body.id))[0]?.data.adminUserId).toBe(w.superadmin.id);
    const signedIn = await call(w.env.publicUrl, 'POST', '/auth/sign-in', {
      body: { email: 'newadmin1@example.test', password: 'a long admin password 7' },
      headers: { 'x-captcha-token': GOOD_CAPTCHA },
    });
    expect(signedIn.status).toBe(200);
    const token = signedIn.cookies.access_token!.value;
    expect((await w.get(`/user/${reply.body.id}`, token)).status).toBe(200);
  });

  it('when no e-mail and no permissions are given, then an admin without either', async () => {
    const reply = await w.post('/user/admin-user', { username: 'BareAdmin1', password: 'another long password 9' });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ email: null, permissions: [] });
  });

  it('when the username is taken, then 409 AUTH_USER_EXISTS', async () => {
    await w.env.makeUser({ username: 'DupAdmin1' });
    expect(
      (await w.post('/user/admin-user', { username: 'dupadmin1', password: 'a long admin password 7', permissions: [] })).body.code,
    ).toBe('AUTH_USER_EXISTS');
  });

  it.each([
    [{ password: 'a long admin password 7', permissions: [] }, 'body.username'],
    [{ username: 'x!', password: 'a long admin password 7' }, 'body.username'],
    [{ username: 'WeakPw1', password: 'short' }, 'body.password'],
    [{ username: 'WeakPw2', password: 'password' }, 'body.password'],
    [{ username: 'BadPerm1', password: 'a long admin password 7', permissions: ['user.fly'] }, 'body.permissions.0'],
    [{ username: 'BadMail1', password: 'a long admin password 7', email: 'not-an-email' }, 'body.email'],
  ])('when the body is %j, then 400 naming %s and no user is created', async (body, field) => {
    const count = async () => Number((await w.env.pool.query('SELECT count(*) AS n FROM user_keys')).rows[0].n);
    const before = await count();
    const reply = await w.post('/user/admin-user', body);
    expect(reply.status).toBe(400);
    expect(reply.body.details.map((x: { field: string }) => x.field)).toContain(field);
    expect(await count()).toBe(before);
  });
});

describe('GET /user/get-admins-with-roles and GET /user/get-all-roles-with-users', () => {
  it('when admins exist, then the admins list them with roles and permissions, and the roles list counts every role', async () => {
    const created = await w.post('/user/admin-user', {
      username: 'ListedAdm1',
      password: 'a long admin password 7',
      permissions: ['tip.view'],
    });
    await synced();
    const admins = await w.get('/user/get-admins-with-roles');
    expect(admins.status).toBe(200);
    const listed = admins.body.find((a: { id: number }) => a.id === created.body.id);
    expect(listed).toEqual({
      id: created.body.id,
      username: 'ListedAdm1',
      email: null,
      isBanned: false,
      permissions: ['tip.view'],
      roles: [
        { role: 'User', userId: created.body.id },
        { role: 'Admin', userId: created.body.id },
      ],
    });
    expect(admins.body.map((a: { id: number }) => a.id)).toContain(w.superadmin.id);
    expect(admins.body.every((a: { roles: { role: string }[] }) => a.roles.some((r) => r.role !== 'User'))).toBe(true);

    const roles = await w.get('/user/get-all-roles-with-users');
    expect(roles.status).toBe(200);
    expect(roles.body.map((r: { role: string }) => r.role)).toEqual(['User', 'Admin', 'SuperAdmin']);
    const total = Number((await w.env.pool.query('SELECT count(*) AS n FROM users')).rows[0].n);
    expect(roles.body[0]).toEqual({ role: 'User', usersCount: total, users: [] });
    expect(roles.body[1].users).toContainEqual({ id: created.body.id, username: 'ListedAdm1', email: null });
    expect(roles.body[2].users.map((x: { id: number }) => x.id)).toContain(w.superadmin.id);
    expect(roles.body[2].usersCount).toBe(roles.body[2].users.length);
  });
});
