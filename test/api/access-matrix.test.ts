import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Permission } from '../../src/domain/user/permissions.js';
import type { Access, RegisteredRoute } from '../../src/http/access.js';
import { bearer, call, createAuthEnv, signIn, type AuthEnv } from '../support/auth-env.js';

let env: AuthEnv;
const tokens: Record<'user' | 'admin' | 'superadmin', string> = { user: '', admin: '', superadmin: '' };

beforeAll(async () => {
  env = await createAuthEnv('access_matrix');
  for (const [who, roles] of [
    ['user', ['User']],
    ['admin', ['User', 'Admin']],
    ['superadmin', ['User', 'SuperAdmin']],
  ] as const) {
    tokens[who] = (await signIn(env, await env.makeUser({ roles: [...roles] }))).accessToken;
  }
});
afterAll(async () => {
  await env?.close();
});

/** A valid request for each back-office route; a route without one fails the test so new routes cannot skip the matrix. */
const SAMPLES: Record<string, (target: { id: number; username: string }) => { path: string; body?: unknown }> = {
  'get /health': () => ({ path: '/health' }),
  'get /user/all-permissions': () => ({ path: '/user/all-permissions' }),
  'put /user/add-single-role': (t) => ({ path: '/user/add-single-role', body: { username: t.username, role: 'Admin' } }),
  'put /user/revoke-single-role': (t) => ({ path: '/user/revoke-single-role', body: { username: t.username, role: 'Admin' } }),
  'get /user/:id': (t) => ({ path: `/user/${t.id}` }),
  'patch /user/:id/ban': (t) => ({ path: `/user/${t.id}/ban`, body: { banReason: 'matrix' } }),
  'patch /user/:id/unban': (t) => ({ path: `/user/${t.id}/unban` }),
  'post /user/:id/sign-out': (t) => ({ path: `/user/${t.id}/sign-out` }),
  'post /user/:id/erase': (t) => ({ path: `/user/${t.id}/erase`, body: { reason: '' } }), // 400: nobody is erased
  'put /user/:id/roles': (t) => ({ path: `/user/${t.id}/roles`, body: { roles: 'Admin' } }),
  'put /user/:id/permissions': (t) => ({ path: `/user/${t.id}/permissions`, body: { permissions: 'user.edit' } }),
  'put /user/:id/kyc': (t) => ({ path: `/user/${t.id}/kyc`, body: { level: 'LEVEL_1' } }),
  'delete /user/:id/permissions/:name': (t) => ({ path: `/user/${t.id}/permissions/user.edit` }),
  'get /registration-info/:userId': (t) => ({ path: `/registration-info/${t.id}` }),
  // Users
  'get /user/all': () => ({ path: '/user/all?sortBy=id&sortOrder=asc&where[vipLevel][gte]=0' }),
  'get /user/search': ({ username }) => ({ path: `/user/search?search=${username}` }),
  'post /user/all': () => ({ path: '/user/all', body: { sortBy: 'id', sortOrder: 'desc' } }),
  'get /user/get-all-roles-with-users': () => ({ path: '/user/get-all-roles-with-users' }),
  'get /user/get-admins-with-roles': () => ({ path: '/user/get-admins-with-roles' }),
  'post /user/admin-user': (t) => ({
    path: '/user/admin-user',
    body: { username: `adm${t.id}`, password: 'matrix admin password 1', permissions: [] },
  }),
  'patch /user/:id': (t) => ({ path: `/user/${t.id}`, body: { isStreamer: true } }),
  'patch /user/:id/avatar/reset': (t) => ({ path: `/user/${t.id}/avatar/reset` }),
  // Leaderboards; ids that do not exist answer 404, past the guard.
  'get /leaderboards/schedule': () => ({ path: '/leaderboards/schedule' }),
  'get /leaderboards/schedule/:id': () => ({ path: '/leaderboards/schedule/matrix-missing' }),
  'post /leaderboards/schedule/:id': () => ({
    path: '/leaderboards/schedule/matrix-missing',
    body: { enabled: false, name: 'm', description: 'm', prizes: [] },
  }),
  'post /leaderboards/give-prize': (t) => ({
    path: '/leaderboards/give-prize',
    body: { currency: 'DBC', leaderboardId: 'matrix-missing', userId: t.id, fullUsdAmount: true },
  }),
  'get /leaderboards': () => ({ path: '/leaderboards?withUsers=true' }),
  'get /leaderboards/:leaderboardId': () => ({ path: '/leaderboards/matrix-missing' }),
  'get /leaderboards/:leaderboardId/users': () => ({ path: '/leaderboards/matrix-missing/users' }),
  'get /leaderboards/:leaderboardId/users/:userId': (t) => ({ path: `/leaderboards/matrix-missing/users/${t.id}` }),
  // Money commands; a withdrawal that does not exist answers 404, past the guard.
  'post /admin-tips': (t) => ({ path: '/admin-tips', body: { amount: '1', currencyId: 'DBC', recipientUserId: t.id, notes: 'matrix' } }),
  'post /admin-tips/deduct-balance': (t) => ({
    path: '/admin-tips/deduct-balance',
    body: { amount: '1', currencyId: 'DBC', recipientUserId: t.id, notes: 'matrix' },
  }),
  'post /withdraw/approve': () => ({ path: '/withdraw/approve', body: { id: 'matrix-missing' } }),
  'post /withdraw/reject': () => ({ path: '/withdraw/reject', body: { id: 'matrix-missing', rejectReason: 'matrix' } }),
  'post /withdraw/retry': () => ({ path: '/withdraw/retry', body: { id: 'matrix-missing' } }),
  'post /deposit/:id/release': () => ({ path: '/deposit/matrix-missing/release', body: { reason: 'matrix' } }),
  'post /deposit/:id/return': () => ({ path: '/deposit/matrix-missing/return', body: { reason: 'matrix' } }),
  'put /user/:id/balance': (t) => ({ path: `/user/${t.id}/balance`, body: { balance: '1', currencyId: 'DBC' } }),
  // Ledger lists (read side)
  'get /admin-tips': () => ({ path: '/admin-tips?sortBy=ID&sortOrder=asc' }),
  'get /withdraw': () => ({ path: '/withdraw?sortBy=CREATED_AT&sortOrder=desc' }),
  'get /deposit': () => ({ path: '/deposit?sortBy=CREATED_AT&sortOrder=desc' }),
  'get /bets': () => ({ path: '/bets?sortBy=CREATED_AT&sortOrder=desc&where[status]=SETTLED' }),
  'post /bets': () => ({ path: '/bets', body: { sortBy: 'CREATED_AT', sortOrder: 'desc', page: 1, take: 20 } }),
  'post /accounting/transactions': (t) => ({ path: '/accounting/transactions', body: { where: { userId: t.id } } }),
  'get /accounting/balances': (t) => ({ path: `/accounting/balances?userId=${t.id}` }), // an addition to the spec
  'get /ledger/periods': () => ({ path: '/ledger/periods' }),
  'post /ledger/periods/:period/close': () => ({ path: '/ledger/periods/not-a-period/close' }), // 400: nothing closes
  'get /ledger/periods/:period/report': () => ({ path: '/ledger/periods/2001-01/report' }),
  'get /ledger/periods/:period/balances': () => ({ path: '/ledger/periods/2001-01/balances' }),
  'get /ledger/periods/:period/balances.csv': () => ({ path: '/ledger/periods/2001-01/balances.csv' }),
  'get /finance/reports/trial-balance': () => ({ path: '/finance/reports/trial-balance?period=2001-01' }),
  'get /finance/reports/liability': () => ({ path: '/finance/reports/liability?period=2001-01' }),
  'get /finance/reports/gaming': () => ({ path: '/finance/reports/gaming?from=2001-01-01&to=2001-01-31' }),
  'get /finance/reports/payments': () => ({ path: '/finance/reports/payments?period=2001-01' }),
  'get /finance/reports/adjustments': () => ({ path: '/finance/reports/adjustments?period=2001-01' }),
  'get /finance/players/:userId/statement': () => ({ path: '/finance/players/1/statement?period=2001-01' }),
  // Reconciliation: a statement the service refuses (not text/csv: 415) and runs that do not exist (404), past the guard.
  'post /finance/reconciliations': () => ({
    path: '/finance/reconciliations?provider=TEST&from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z',
  }),
  'get /finance/reconciliations': () => ({ path: '/finance/reconciliations' }),
  'get /finance/reconciliations/:id': () => ({ path: '/finance/reconciliations/matrix-missing' }),
  'get /finance/reconciliations/:id/items': () => ({ path: '/finance/reconciliations/matrix-missing/items?kind=breaks' }),
  'post /finance/reconciliations/:id/items/:itemNo/resolve': () => ({
    path: '/finance/reconciliations/matrix-missing/items/1/resolve',
    body: { note: 'matrix' },
  }),
  'get /user/stats/transactions': () => ({ path: '/user/stats/transactions?transactionType=DEPOSIT' }),
  'get /user/:id/full/stats': (t) => ({ path: `/user/${t.id}/full/stats` }),
  'post /rakeback/find-many': (t) => ({ path: '/rakeback/find-many', body: { where: { userId: t.id } } }),
  // Affiliates, config, FAQ, chat; unknown FAQ ids answer 404, past the guard.
  'get /affiliate/levels': () => ({ path: '/affiliate/levels' }),
  'post /affiliate/users': (t) => ({
    path: '/affiliate/users',
    body: { sortBy: 'CREATED_AT', sortOrder: 'desc', where: { ownerId: t.id }, page: 1, take: 20 },
  }),
  'post /affiliate/find-one': (t) => ({ path: '/affiliate/find-one', body: { where: { userId: t.id } } }),
  'post /affiliate/find-one-stats': (t) => ({ path: '/affiliate/find-one-stats', body: { where: { userId: t.id } } }),
  'get /config': () => ({ path: '/config?code=WITHDRAWALS' }),
  'put /config': () => ({ path: '/config?code=WITHDRAWALS', body: { code: {}, config: { enabled: true } } }),
  'get /faq': () => ({ path: '/faq' }),
  'post /faq': () => ({ path: '/faq', body: { title: 'matrix', text: 'matrix' } }),
  'put /faq': () => ({ path: '/faq', body: { id: 999999, title: 'matrix' } }),
  'delete /faq': () => ({ path: '/faq', body: { id: 999999 } }),
  'get /chat/messages': () => ({ path: '/chat/messages?roomId=general' }),
  'post /chat/admin-action': () => ({
    path: '/chat/admin-action',
    body: { action: 'set_rate_limit', args: { roomId: 'matrix', messagesPerMinute: 10 } },
  }),
  // Limits and API keys
  'post /user-limits/user-exclusion': (t) => ({
    path: '/user-limits/user-exclusion',
    body: { excludeUntil: '2099-01-01T00:00:00Z', userId: t.id },
  }),
  'delete /user-limits/user-exclusion': (t) => ({ path: '/user-limits/user-exclusion', body: { userId: t.id } }),
  'get /user-limits/user-exclusion/:id': (t) => ({ path: `/user-limits/user-exclusion/${t.id}` }),
  'post /user-limits/gambling-limits': (t) => ({ path: '/user-limits/gambling-limits', body: { betLimit: '10', userId: t.id } }),
  'get /user-limits/gambling-limits/:id': (t) => ({ path: `/user-limits/gambling-limits/${t.id}` }),
  'post /user-limits/deposit-loss-limits': (t) => ({
    path: '/user-limits/deposit-loss-limits',
    body: { userId: t.id, kind: 'loss', window: '24h', limit: '50' },
  }),
  'get /user-limits/deposit-loss-limits/:id': (t) => ({ path: `/user-limits/deposit-loss-limits/${t.id}` }),
  'post /monitors': () => ({ path: '/monitors', body: { type: 'no-such-type' } }),
  'get /monitors': () => ({ path: '/monitors' }),
  'get /monitors/alerts': () => ({ path: '/monitors/alerts' }),
  'post /monitors/webhooks': () => ({ path: '/monitors/webhooks', body: {} }),
  'get /monitors/webhooks': () => ({ path: '/monitors/webhooks' }),
  'post /monitors/:id/enabled': () => ({ path: '/monitors/999999/enabled', body: { enabled: false } }),
  'post /monitors/webhooks/:id/enable': () => ({ path: '/monitors/webhooks/999999/enable' }),
  'get /aml-flags': () => ({ path: '/aml-flags?status=OPEN' }),
  'post /aml-flags/:id/assign': () => ({ path: '/aml-flags/no-such-flag/assign', body: {} }),
  'post /aml-flags/:id/clear': () => ({ path: '/aml-flags/no-such-flag/clear', body: { note: 'checked' } }),
  'post /api-keys': (t) => ({ path: '/api-keys', body: { userId: t.id } }),
  'get /api-keys/:userId': (t) => ({ path: `/api-keys/${t.id}` }),
  'delete /api-keys/:userId': (t) => ({ path: `/api-keys/${t.id}` }),
  // Exports and the admin audit log: additions to the spec
  'get /accounting/export': () => ({ path: '/accounting/export?format=csv' }),
  'get /admin-audit': (t) => ({ path: `/admin-audit?userId=${t.id}` }),
};

type Row = readonly [actor: string, expected: 'allowed' | 401 | 403];
const rowsFor = (access: Exclude<Access, { kind: 'by-query' }>): Row[] => {
  switch (access.kind) {
    case 'none':
      return [
        ['nobody', 'allowed'],
        ['user', 'allowed'],
        ['admin', 'allowed'],
        ['admin+perm', 'allowed'],
        ['superadmin', 'allowed'],
      ];
    case 'auth':
      return [
        ['nobody', 401],
        ['user', 403],
        ['admin', 'allowed'],
        ['admin+perm', 'allowed'],
        ['superadmin', 'allowed'],
      ];
    case 'perm':
      return [
        ['nobody', 401],
        ['user', 403],
        ['admin', 403],
        ['admin+perm', 'allowed'],
        ['superadmin', 'allowed'],
      ];
    case 'superadmin':
      return [
        ['nobody', 401],
        ['user', 403],
        ['admin', 403],
        ['admin+perm', 403],
        ['superadmin', 'allowed'],
      ];
  }
};

describe('back-office access matrix', () => {
  it('when the back office starts, then every registered route is in the registry with its access, and user routes are there', () => {
    const keys = env.registry.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(expect.arrayContaining(['get /health', 'patch /user/:id/ban', 'put /user/:id/permissions']));
  });

  it('when each route is called by nobody, a User, an Admin without the permission, an Admin with exactly it and a SuperAdmin, then 401 / 403 / 403 / allowed / allowed (SA: 401 / 403 / 403 / 403 / allowed)', async () => {
    const failures: string[] = [];
    // One signed-in Admin per permission (a sign-in hashes a password: the slow part when the machine is loaded).
    const permTokens = new Map<string, Promise<string>>();
    const tokenFor = (permission: string | undefined) => {
      const key = permission ?? '';
      if (!permTokens.has(key)) {
        permTokens.set(
          key,
          env
            .makeUser({ roles: ['User', 'Admin'], permissions: permission ? [permission as Permission] : [] })
            .then(async (user) => (await signIn(env, user)).accessToken),
        );
      }
      return permTokens.get(key)!;
    };
    // A by-query route is checked once per value of its parameter, each against that value's own rule.
    const casesOf = (route: RegisteredRoute) =>
      route.access.kind === 'by-query'
        ? Object.entries(route.access.rules).map(([value, access]) => ({
            access,
            query: `${route.access.kind === 'by-query' ? route.access.param : ''}=${value}`,
          }))
        : [{ access: route.access, query: undefined }];
    for (const route of env.registry)
      for (const { access, query } of casesOf(route)) {
        const key = `${route.method} ${route.path}`;
        const sample = SAMPLES[key];
        if (!sample) {
          failures.push(`${key}: no sample request in the matrix`);
          continue;
        }
        const permission = access.kind === 'perm' ? access.permission : undefined;
        const permToken = await tokenFor(permission);
        for (const [actor, expected] of rowsFor(access)) {
          const target = await env.makeUser();
          const sampled = sample({ id: target.id, username: target.username! });
          const { body } = sampled;
          const path = query === undefined ? sampled.path : `${sampled.path}${sampled.path.includes('?') ? '&' : '?'}${query}`;
          const token = actor === 'nobody' ? undefined : actor === 'admin+perm' ? permToken : tokens[actor as keyof typeof tokens];
          const reply = await call(env.adminUrl, route.method.toUpperCase(), path, {
            headers: token ? bearer(token) : {},
            ...(body === undefined ? {} : { body }),
          });
          const ok = expected === 'allowed' ? reply.status !== 401 && reply.status !== 403 : reply.status === expected;
          if (!ok)
            failures.push(
              `${key}${query ? ` ${query}` : ''} as ${actor}: expected ${expected}, got ${reply.status} ${JSON.stringify(reply.body)}`,
            );
        }
      }
    expect(failures).toEqual([]);
  }, 120_000); // about 300 real requests: the budget is for a loaded 2-core machine, not a timing assertion

  it('when an Admin with user.edit grants a permission they do not hold, then 403; a SuperAdmin may', async () => {
    const admin = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['user.edit'] });
    const target = await env.makeUser();
    const token = (await signIn(env, admin)).accessToken;
    const refused = await call(env.adminUrl, 'PUT', `/user/${target.id}/permissions`, {
      headers: bearer(token),
      body: { permissions: 'user.ban' },
    });
    expect(refused.status).toBe(403);
    const granted = await call(env.adminUrl, 'PUT', `/user/${target.id}/permissions`, {
      headers: bearer(tokens.superadmin),
      body: { permissions: 'user.ban' },
    });
    expect(granted.body.permissions).toEqual(['user.ban']);
  });

  it('when an Admin holding every needed permission targets a SuperAdmin (ban, unban, edit, avatar, roles, permissions), then 403 and nothing changes; a SuperAdmin may', async () => {
    const admin = await env.makeUser({ roles: ['User', 'Admin'], permissions: ['user.ban', 'user.edit', 'user.view'] });
    const token = (await signIn(env, admin)).accessToken;
    const target = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
    const before = await env.users.load(target.id);
    const attempts: Array<[string, string, unknown?]> = [
      ['PATCH', `/user/${target.id}/ban`, { banReason: 'escalation' }],
      ['PATCH', `/user/${target.id}/unban`],
      ['PATCH', `/user/${target.id}`, { username: 'renamedsa' }],
      ['PATCH', `/user/${target.id}/avatar/reset`],
      ['PUT', `/user/${target.id}/roles`, { roles: 'Admin' }],
      ['PUT', `/user/${target.id}/permissions`, { permissions: 'user.view' }],
      ['DELETE', `/user/${target.id}/permissions/user.view`],
      ['PUT', '/user/revoke-single-role', { username: target.username, role: 'SuperAdmin' }],
    ];
    for (const [method, path, body] of attempts) {
      const reply = await call(env.adminUrl, method, path, { headers: bearer(token), ...(body === undefined ? {} : { body }) });
      expect({ method, path, status: reply.status, code: reply.body?.code }).toEqual({ method, path, status: 403, code: 'FORBIDDEN' });
    }
    expect(await env.users.load(target.id)).toEqual(before);
    expect((await signIn(env, target)).accessToken).not.toBe('');
    // The same Admin may still act on an ordinary user, and a SuperAdmin on a SuperAdmin.
    const plain = await env.makeUser();
    expect((await call(env.adminUrl, 'PATCH', `/user/${plain.id}/avatar/reset`, { headers: bearer(token) })).status).toBe(200);
    expect((await call(env.adminUrl, 'PATCH', `/user/${target.id}/avatar/reset`, { headers: bearer(tokens.superadmin) })).status).toBe(200);
  });

  it("when a permission is granted or revoked, then the holder's live session gains or loses access on the next request", async () => {
    const admin = await env.makeUser({ roles: ['User', 'Admin'] });
    const target = await env.makeUser();
    const token = (await signIn(env, admin)).accessToken;
    const view = () => call(env.adminUrl, 'GET', `/user/${target.id}`, { headers: bearer(token) });
    expect((await view()).status).toBe(403);
    await call(env.adminUrl, 'PUT', `/user/${admin.id}/permissions`, {
      headers: bearer(tokens.superadmin),
      body: { permissions: 'user.view' },
    });
    expect((await view()).status).toBe(200);
    await call(env.adminUrl, 'DELETE', `/user/${admin.id}/permissions/user.view`, { headers: bearer(tokens.superadmin) });
    expect((await view()).status).toBe(403);
    await call(env.adminUrl, 'PUT', '/user/revoke-single-role', {
      headers: bearer(tokens.superadmin),
      body: { username: admin.username, role: 'Admin' },
    });
    expect((await call(env.adminUrl, 'GET', `/user/${target.id}`, { headers: bearer(token) })).status).toBe(403);
  });
});
