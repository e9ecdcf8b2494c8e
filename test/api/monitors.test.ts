import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminApp } from '../../src/http/admin-app.js';
import { createLogger } from '../../src/infra/logger.js';
import type { Projector } from '../../src/projections/index.js';
import { bearer, call, createAuthEnv, signIn, type AuthEnv } from '../support/auth-env.js';
import { eventually } from '../support/eventually.js';

let env: AuthEnv;
let projector: Projector;
let adminUrl: string;
let close: () => Promise<void>;
let superToken: string;
let superId: number;
let adminToken: string;

const as = (token: string, method: string, path: string, body?: unknown) =>
  call(adminUrl, method, path, { headers: bearer(token), ...(body === undefined ? {} : { body }) });

beforeAll(async () => {
  env = await createAuthEnv('monitors_api');
  projector = env.startProjector();
  const app = createAdminApp({
    logger: createLogger({ level: 'silent' }),
    pool: env.pool,
    store: env.store,
    ledger: env.ledger,
    auth: env.kit,
    accessRegistry: [],
  });
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  adminUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
  const sa = await env.makeUser({ roles: ['User', 'SuperAdmin'] });
  superId = sa.id;
  superToken = (await signIn(env, sa)).accessToken;
  adminToken = (await signIn(env, await env.makeUser({ roles: ['User', 'Admin'], permissions: ['kyc.view', 'kyc.edit'] }))).accessToken;
});
afterAll(async () => {
  await projector?.stop();
  await close?.();
  await env?.close();
});

describe('monitors API: a SuperAdmin defines monitors and webhooks (audited); alerts of later facts are listed', () => {
  it('creates, audits and lists; a withdrawal over the threshold is an alert with its delivery pending', async () => {
    expect((await as(adminToken, 'POST', '/monitors', { type: 'withdrawal-over', thresholdUsd: '5' })).status).toBe(403);
    const created = await as(superToken, 'POST', '/monitors', { type: 'withdrawal-over', thresholdUsd: '5' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'withdrawal-over', thresholdUsd: '5', enabled: true, createdBy: superId });
    expect((await as(superToken, 'POST', '/monitors', { type: 'withdrawal-over', thresholdUsd: '1.5e3' })).status).toBe(400);
    const hook = await as(superToken, 'POST', '/monitors/webhooks', {
      monitorType: 'withdrawal-over',
      url: 'http://127.0.0.1:9/hook',
      secret: 'a-secret-of-16-chars',
    });
    expect(hook.status).toBe(201);
    expect(hook.body).not.toHaveProperty('secret');
    const listed = await as(superToken, 'GET', '/monitors/webhooks');
    expect(listed.body.data).toEqual([expect.objectContaining({ monitorType: 'withdrawal-over', state: 'active' })]);
    expect(JSON.stringify(listed.body)).not.toContain('a-secret-of-16-chars');
    const audit = await env.pool.query<{ action: string }>('SELECT action FROM admin_audit_records WHERE admin_user_id = $1 ORDER BY id', [
      superId,
    ]);
    expect(audit.rows.map((r) => r.action).sort()).toEqual(['monitor.create', 'monitor.webhook-create']);

    const user = await env.makeUser();
    const dep = await env.ledger.requestDeposit({
      externalId: `m-${user.id}`,
      userId: user.id,
      providerId: 'TEST',
      networkId: 'USDT',
      currencyId: 'USDT',
      amount: '100',
    });
    if (dep._tag === 'Left') throw new Error(JSON.stringify(dep.left));
    await env.ledger.completeDeposit(dep.right.deposit.id, {});
    for (const amount of ['3', '20']) {
      const w = await env.ledger.requestWithdrawal({
        userId: user.id,
        currencyId: 'USDT',
        networkId: 'ETH',
        providerId: 'TEST',
        amount,
        recipientAddress: '0xabc',
      });
      if (w._tag === 'Left') throw new Error(JSON.stringify(w.left));
    }
    const alerts = await eventually(async () => {
      const res = await as(superToken, 'GET', '/monitors/alerts');
      expect(res.body.data).toHaveLength(1);
      return res.body.data;
    });
    expect(alerts[0]).toMatchObject({ type: 'withdrawal-over', userId: user.id, amountUsd: '20', delivered: 0, pending: 1 });
    expect(alerts[0].subject).toMatch(/^withdrawal:/);

    // Disabled, the monitor raises nothing for a later withdrawal; the counted alert is still the one.
    expect((await as(superToken, 'POST', `/monitors/${created.body.id}/enabled`, { enabled: false })).status).toBe(204);
    expect((await as(superToken, 'POST', '/monitors/999999/enabled', { enabled: true })).status).toBe(404);
    // A second monitor, still enabled, shows when the projection has seen the later withdrawal.
    expect((await as(superToken, 'POST', '/monitors', { type: 'withdrawal-over', thresholdUsd: '25' })).status).toBe(201);
    const later = await env.ledger.requestWithdrawal({
      userId: user.id,
      currencyId: 'USDT',
      networkId: 'ETH',
      providerId: 'TEST',
      amount: '30',
      recipientAddress: '0xabc',
    });
    if (later._tag === 'Left') throw new Error(JSON.stringify(later.left));
    const subjects = await eventually(async () => {
      const res = await as(superToken, 'GET', '/monitors/alerts');
      expect(res.body.data).toHaveLength(2);
      return res.body.data as { monitorId: string; amountUsd: string }[];
    });
    expect(subjects.filter((a) => a.monitorId === created.body.id).map((a) => a.amountUsd)).toEqual(['20']);

    expect((await as(superToken, 'POST', `/monitors/webhooks/${hook.body.id}/enable`)).status).toBe(204);
    expect((await as(superToken, 'POST', '/monitors/webhooks/999999/enable')).status).toBe(404);
    const actions = await env.pool.query<{ action: string }>('SELECT action FROM admin_audit_records WHERE admin_user_id = $1', [superId]);
    expect(actions.rows.map((r) => r.action)).toEqual(expect.arrayContaining(['monitor.set-enabled', 'monitor.webhook-enable']));
  });
});
