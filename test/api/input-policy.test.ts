import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openExport } from '../../src/audit/export.js';
import { call, GOOD_CAPTCHA } from '../support/auth-env.js';
import { createHostileEnv, type HostileEnv } from '../support/hostile-env.js';

let env: HostileEnv;
beforeAll(async () => {
  env = await createHostileEnv('input_policy');
});
afterAll(async () => {
  await env?.closeHostile();
});

/** A request with a body sent as these exact bytes. */
const raw = async (base: string, method: string, path: string, body: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  let parsed: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
};

/** Every field named in a 400's details. */
const fields = (body: { details?: { field: string }[] }): string[] => (body.details ?? []).map((d) => d.field);

const stillAnswers = async () => {
  for (const base of [env.publicUrl, env.adminUrl, env.internalUrl]) expect((await call(base, 'GET', '/health')).status).toBe(200);
};

describe('one input policy at the edge', () => {
  it('when an unauthenticated sign-in carries a NUL or a lone surrogate, then 400 VALIDATION_FAILED naming body.email, nothing written', async () => {
    const before = await env.footprint();
    for (const email of ['\u0000', 'a\ud800@example.test', '\udc00']) {
      const reply = await call(env.publicUrl, 'POST', '/auth/sign-in', {
        body: { email, password: 'x' },
        headers: { 'x-captcha-token': GOOD_CAPTCHA },
      });
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_FAILED');
      expect(fields(reply.body)).toEqual(['body.email']);
    }
    expect(await env.footprint()).toEqual(before);
  });

  it('when an admin tip has a NUL in notes, then 400 naming body.notes and no event is written', async () => {
    const target = await env.makeUser();
    const before = await env.footprint();
    const reply = await env.asAdmin(env.adminUrl, 'POST', '/admin-tips', {
      body: { amount: '1', currencyId: 'DBC', recipientUserId: target.id, notes: 'a\u0000b' },
    });
    expect(reply.status).toBe(400);
    expect(fields(reply.body)).toEqual(['body.notes']);
    expect(await env.footprint()).toEqual(before);
  });

  it('when an internal ledger call carries a lone surrogate in a key or a value, then 400 naming the field', async () => {
    const before = await env.footprint();
    const value = await env.asAdmin(env.internalUrl, 'POST', '/internal/deposits', {
      body: { externalId: 'x\ud83d', userId: 1, providerId: 'PROVIDER_A', networkId: 'BTC', currencyId: 'BTC', amount: '1' },
    });
    expect([value.status, fields(value.body)]).toEqual([400, ['body.externalId']]);
    const key = await raw(env.internalUrl, 'POST', '/internal/bets', '{"\\u0000":1}', {
      'x-service-token': 'hostile-internal-token-0123456789',
    });
    expect([key.status, key.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(await env.footprint()).toEqual(before);
  });

  it('when a path holds malformed percent-encoding or an encoded NUL, then 400 naming params, on every surface', async () => {
    for (const [base, path] of [
      [env.adminUrl, '/user/%ZZ'],
      [env.adminUrl, '/user/1%00'],
      [env.internalUrl, '/internal/deposits/%E0%A4%A/confirm'],
      [env.publicUrl, '/auth/%ZZ'],
    ] as const) {
      const reply = await env.asAdmin(base, base === env.internalUrl ? 'POST' : 'GET', path, base === env.internalUrl ? { body: {} } : {});
      expect({ path, status: reply.status, code: reply.body.code, fields: fields(reply.body) }).toEqual({
        path,
        status: 400,
        code: 'VALIDATION_FAILED',
        fields: ['params'],
      });
    }
  });

  it('when a date filter or range is outside what PostgreSQL stores once the zone is applied, then 400 naming the field', async () => {
    const cases: Array<[string, string, string, unknown, string]> = [
      ['GET', '/user/all?sortBy=id&sortOrder=asc&where[createdAt][lt]=0000-01-01T00:00:00Z', '', undefined, 'query.where.createdAt.lt'],
      [
        'GET',
        '/bets?sortBy=CREATED_AT&sortOrder=desc&where[createdAt][gte]=9999-12-31T23:59:59-23:59',
        '',
        undefined,
        'query.where.createdAt.gte',
      ],
      ['POST', '/accounting/transactions', '', { where: { createdAt: { gt: '0000-12-31T23:59:59+01:00' } } }, 'body.where.createdAt.gt'],
      ['GET', '/admin-audit?from=0000-01-01T00:00:00Z', '', undefined, 'query.from'],
      [
        'POST',
        '/user-limits/user-exclusion',
        '',
        { excludeUntil: '9999-12-31T23:59:59-23:59', userId: env.superadmin.id },
        'body.excludeUntil',
      ],
    ];
    const before = await env.footprint();
    for (const [method, path, , body, field] of cases) {
      const reply = await env.asAdmin(env.adminUrl, method, path, body === undefined ? {} : { body });
      expect({ path, status: reply.status, fields: fields(reply.body) }).toEqual({ path, status: 400, fields: [field] });
    }
    expect(await env.footprint()).toEqual(before);
  });

  it('when an export is asked from year 0 or up to a time that is year 10000 in UTC, then 400 and every surface still answers', async () => {
    for (const [query, field] of [
      ['from=0000-01-01T00:00:00Z', 'query.from'],
      ['to=9999-12-31T23:59:59-23:59', 'query.to'],
    ]) {
      const reply = await env.asAdmin(env.adminUrl, 'GET', `/accounting/export?kind=transactions&${query}`);
      expect([reply.status, fields(reply.body)]).toEqual([400, [field]]);
    }
    await stillAnswers();
  });

  it('when the database refuses an export statement, then openExport rejects and no stream error escapes', async () => {
    // Below the HTTP edge (the CLI path): a Date that PostgreSQL cannot take fails the statement itself.
    await expect(
      openExport({ pool: env.pool, kind: 'transactions', format: 'csv', from: new Date('0000-01-01T00:00:00Z') }),
    ).rejects.toThrow(/out of range/);
    await new Promise((r) => setTimeout(r, 50)); // one turn for a stray 'error' event, which vitest would report
    await stillAnswers();
  });

  it('when a decimal filter has 20,000 digits, then 400 naming it', async () => {
    const digits = '9'.repeat(20_000);
    const reply = await env.asAdmin(env.adminUrl, 'POST', '/bets', {
      body: { sortBy: 'CREATED_AT', sortOrder: 'desc', page: 1, take: 20, where: { usdAmount: { gt: digits } } },
    });
    expect([reply.status, fields(reply.body)]).toEqual([400, ['body.where.usdAmount.gt']]);
    const users = await env.asAdmin(env.adminUrl, 'POST', '/user/all', {
      body: { sortBy: 'id', sortOrder: 'asc', where: { statsUsd: { ltv: { lt: digits } } } },
    });
    expect([users.status, fields(users.body)]).toEqual([400, ['body.where.statsUsd.ltv.lt']]);
  });

  it('when JSON is nested 12,000 levels deep (body or a JSON query value), then 400 and the process still answers', async () => {
    const deep = `${'['.repeat(12_000)}${']'.repeat(12_000)}`;
    const body = await raw(env.publicUrl, 'POST', '/auth/sign-in', `{"email":${deep}}`, { 'x-captcha-token': GOOD_CAPTCHA });
    expect([body.status, body.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(fields(body.body)[0]).toMatch(/^body\.email/);
    // A free-form object (site configuration sections) would otherwise be walked to the bottom by validation.
    const config = await raw(env.adminUrl, 'PUT', '/config?code=COMMON', `{"code":{},"config":{"x":${deep}}}`, {
      authorization: `Bearer ${env.superadmin.token}`,
    });
    expect([config.status, config.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const where = encodeURIComponent(`{"createdAt":${'{"a":'.repeat(200)}1${'}'.repeat(200)}}`);
    const query = await env.asAdmin(env.adminUrl, 'GET', `/bets?sortBy=CREATED_AT&sortOrder=desc&where=${where}`);
    expect([query.status, query.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    await stillAnswers();
  });

  it('when a body is larger than the limit, then 413 naming the body', async () => {
    const reply = await raw(env.publicUrl, 'POST', '/auth/sign-in', JSON.stringify({ email: 'x'.repeat(200_000) }));
    expect([reply.status, fields(reply.body)]).toEqual([413, ['body']]);
  });
});
