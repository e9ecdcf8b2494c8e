import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Projector } from '../../src/projections/index.js';
import { createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { signedInAdmin } from '../support/money-env.js';

let env: AuthEnv;
let projector: Projector;
let superadmin: Awaited<ReturnType<typeof signedInAdmin>>;
let viewer: Awaited<ReturnType<typeof signedInAdmin>>;

/** Last month, by the calendar the service uses here (UTC months): the first period anything is booked in below. */
const now = new Date();
const lastMonthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
const lastMonth = lastMonthStart.toISOString().slice(0, 7);

beforeAll(async () => {
  env = await createAuthEnv('periods_api');
  projector = env.startProjector();
  superadmin = await signedInAdmin(env, [], true);
  viewer = await signedInAdmin(env, ['balance.view']);
});
afterAll(async () => {
  await projector?.stop();
  await env?.close();
});

describe('the books over HTTP: close a period, read its report, download its closing balances', () => {
  it('when a SuperAdmin closes last month, then 201 with its sealed-digest report; a second close is 409; the CSV lists opening and closing balances', async () => {
    const user = await env.makeUser();
    const effectiveAt = new Date(lastMonthStart.getTime() + 3 * 86_400_000).toISOString();
    const dep = await env.ledger.requestDeposit({
      externalId: `p-${user.id}`,
      userId: user.id,
      providerId: 'P',
      networkId: 'BTC',
      currencyId: 'BTC',
      amount: '1.25',
      effectiveAt,
    });
    if (dep._tag === 'Left') throw new Error(dep.left._tag);
    const done = await env.ledger.completeDeposit(dep.right.deposit.id, { effectiveAt });
    if (done._tag === 'Left') throw new Error(done.left._tag);

    const listed = await viewer.as('GET', '/ledger/periods');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ timeZone: 'UTC', unit: 'month', nextToClose: lastMonth, closed: [] });
    const refused = await viewer.as('POST', `/ledger/periods/${lastMonth}/close`);
    expect(refused.status).toBe(403);

    const closed = await superadmin.as('POST', `/ledger/periods/${lastMonth}/close`);
    expect(closed.status).toBe(201);
    expect(closed.body).toMatchObject({ period: lastMonth, state: 'CLOSED', balances: 2 });
    expect(closed.body.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(closed.body.report.trialBalance).toEqual([{ currencyId: 'BTC', total: '0' }]);
    expect(closed.body.report.liability).toEqual([
      { currencyId: 'BTC', playerBalances: '1.25', withdrawalsHeld: '0', openBetStakes: '0', total: '1.25' },
    ]);
    const again = await superadmin.as('POST', `/ledger/periods/${lastMonth}/close`);
    expect([again.status, again.body.code]).toEqual([409, 'PERIOD_ALREADY_CLOSED']);
    const early = await superadmin.as('POST', `/ledger/periods/${now.toISOString().slice(0, 7)}/close`);
    expect([early.status, early.body.code]).toEqual([409, 'PERIOD_NOT_ENDED']);
    const malformed = await superadmin.as('POST', '/ledger/periods/2026-13/close');
    expect([malformed.status, malformed.body.code]).toEqual([400, 'VALIDATION_FAILED']);

    const report = await viewer.as('GET', `/ledger/periods/${lastMonth}/report`);
    expect(report.body).toEqual(closed.body);
    const csv = await viewer.as('GET', `/ledger/periods/${lastMonth}/balances.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(String(csv.body).split('\r\n')).toEqual([
      'account,currencyId,opening,closing',
      'house:deposits,BTC,0,-1.25',
      `user:${user.id},BTC,0,1.25`,
      '',
    ]);
    const missing = await viewer.as('GET', '/ledger/periods/2001-01/balances.csv');
    expect([missing.status, missing.body.code]).toEqual([404, 'PERIOD_NOT_CLOSED']);
  });
});
