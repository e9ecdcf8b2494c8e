import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, createAuthEnv, signIn, type AuthEnv } from '../support/auth-env.js';

let env: AuthEnv;
let superadmin = '';
let superadminId = 0;
const fieldsOf = (body: { details?: { field: string }[] }) => (body.details ?? []).map((d) => d.field);
const put = (code: string, body: unknown, token = superadmin) =>
  call(env.adminUrl, 'PUT', `/config?code=${code}`, { headers: bearer(token), body });
const get = (code: string, token = superadmin) => call(env.adminUrl, 'GET', `/config?code=${code}`, { headers: bearer(token) });
const rateOf = async (currencyId: string) =>
  (await env.pool.query<{ r: string }>('SELECT usd_rate::text AS r FROM currency_rates WHERE currency_id = $1', [currencyId])).rows[0]!.r;
const footprint = async () => ({
  events: Number((await env.pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n),
  config: (await env.pool.query('SELECT code, config FROM site_config ORDER BY code')).rows,
  btc: await rateOf('BTC'),
});

beforeAll(async () => {
  env = await createAuthEnv('site_config');
  const sa = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
  superadminId = sa.id;
  superadmin = (await signIn(env, sa)).accessToken;
});
afterAll(async () => {
  await env?.close();
});

describe('GET /config', () => {
  // First in the file: no section has been put yet.
  it('when a section was never put, then 200 with an empty config and no revision', async () => {
    const reply = await get('BATTLES');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ code: 'BATTLES', config: {}, revision: null, updatedByUserId: null, updatedAt: null });
  });

  it('when a section was put, then 200 with the stored section, as the PUT answered it', async () => {
    const stored = await put('AFFILIATES', { code: {}, config: { enabled: false, minClaimUsdAmount: '12.5' } });
    const reply = await get('AFFILIATES');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(stored.body);
    expect(reply.body).toMatchObject({ config: { enabled: false, minClaimUsdAmount: '12.5' }, updatedByUserId: superadminId });
  });

  it('when the code is unknown or missing, then 400 VALIDATION_FAILED naming query.code', async () => {
    for (const path of ['/config?code=GAMES', '/config']) {
      const reply = await call(env.adminUrl, 'GET', path, { headers: bearer(superadmin) });
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_FAILED');
      expect(fieldsOf(reply.body)).toEqual(['query.code']);
    }
  });

  it('when an Admin who is not SuperAdmin calls, then 403', async () => {
    const token = (await signIn(env, await env.makeUser({ roles: ['User', 'Admin'], permissions: ['faq.edit', 'user.edit'] }))).accessToken;
    const reply = await get('WITHDRAWALS', token);
    expect(reply.status).toBe(403);
    expect(reply.body.code).toBe('FORBIDDEN');
  });
});

describe('PUT /config', () => {
  it("when COMMON rates are put, then 200 with the stored section, currency_rates and the ledger's rate cache follow at once", async () => {
    expect(await env.ledger.internals.rates.usdRate('BTC')).toBe('65000');
    const reply = await put('COMMON', { code: {}, config: { rates: { BTC: '70000.5', ETH: '3100' }, maintenanceMode: false } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      code: 'COMMON',
      config: { rates: { BTC: '70000.5', ETH: '3100' }, maintenanceMode: false },
      revision: 0,
      updatedByUserId: superadminId,
      updatedAt: expect.any(String),
    });
    expect([await rateOf('BTC'), await rateOf('ETH'), await rateOf('USDT')]).toEqual(['70000.5', '3100', '1']);
    expect(await env.ledger.internals.rates.usdRate('BTC')).toBe('70000.5');
  });

  it('when a section is put twice, then each change is an event in config-<code> with the acting admin and the latest replaces the section', async () => {
    await put('WITHDRAWALS', { code: { note: 'first' }, config: { enabled: true, dailyLimitUsd: '5000' } });
    const reply = await put('WITHDRAWALS', { code: {}, config: { enabled: false } });
    expect(reply.body).toMatchObject({ code: 'WITHDRAWALS', config: { enabled: false }, revision: 1 });
    const events = await env.store.readStream('config-WITHDRAWALS');
    expect(events.map((e) => [e.type, e.data.adminUserId, e.data.config])).toEqual([
      ['SiteConfigChanged', superadminId, { enabled: true, dailyLimitUsd: '5000' }],
      ['SiteConfigChanged', superadminId, { enabled: false }],
    ]);
    expect(events[0]!.data.request).toEqual({ note: 'first' });
    const { rows } = await env.pool.query('SELECT config, revision FROM site_config WHERE code = $1', ['WITHDRAWALS']);
    expect(rows).toEqual([{ config: { enabled: false }, revision: '1' }]);
  });

  it.each([
    ['BATTLES', { enabled: true, minPlayers: 2, maxPlayers: 4, houseEdge: '0.05' }],
    ['AFFILIATES', { enabled: true, minClaimUsdAmount: '10', defaultCommission: '0.05' }],
  ])('when %s is put with a valid section, then 200', async (code, config) => {
    const reply = await put(code, { code: {}, config });
    expect(reply.status).toBe(200);
    expect(reply.body.config).toEqual(config);
  });

  it.each([
    ['an unknown section code', 'GAMES', { code: {}, config: {} }, 'query.code'],
    ['a missing config', 'COMMON', { code: {} }, 'body.config'],
    ['a missing code object', 'COMMON', { config: {} }, 'body.code'],
    ['a malformed rate', 'COMMON', { code: {}, config: { rates: { BTC: '-1' } } }, 'body.config.rates.BTC'],
    ['a rate with too many decimals', 'COMMON', { code: {}, config: { rates: { BTC: '1.123456789' } } }, 'body.config.rates.BTC'],
    ['an unknown currency', 'COMMON', { code: {}, config: { rates: { DOGE: '1' } } }, 'body.config.rates'],
    ['a field of another section', 'BATTLES', { code: {}, config: { dailyLimitUsd: '1' } }, 'body.config'],
    ['a house edge of 1', 'BATTLES', { code: {}, config: { houseEdge: '1' } }, 'body.config.houseEdge'],
    ['minPlayers above maxPlayers', 'BATTLES', { code: {}, config: { minPlayers: 4, maxPlayers: 2 } }, 'body.config.minPlayers'],
    ['a non-boolean flag', 'WITHDRAWALS', { code: {}, config: { enabled: 'yes' } }, 'body.config.enabled'],
  ])('when %s, then 400 VALIDATION_FAILED and nothing changes', async (_name, code, body, field) => {
    const before = await footprint();
    const reply = await put(code, body);
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_FAILED');
    expect(fieldsOf(reply.body)).toContain(field);
    expect(await footprint()).toEqual(before);
  });

  it('when an Admin holding other permissions calls, then 403 (SuperAdmin only)', async () => {
    const token = (await signIn(env, await env.makeUser({ roles: ['User', 'Admin'], permissions: ['faq.edit', 'user.edit'] }))).accessToken;
    expect((await put('COMMON', { code: {}, config: {} }, token)).status).toBe(403);
  });
});
