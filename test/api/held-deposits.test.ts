import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminApp } from '../../src/http/admin-app.js';
import { createLogger } from '../../src/infra/logger.js';
import type { Projector } from '../../src/projections/index.js';
import { call, createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { eventually } from '../support/eventually.js';
import { balanceOf, signedInAdmin } from '../support/money-env.js';

let env: AuthEnv;
let projector: Projector;
let server: Server;
let internalUrl: string;
let editor: Awaited<ReturnType<typeof signedInAdmin>>;
let viewer: Awaited<ReturnType<typeof signedInAdmin>>;
let finance: Awaited<ReturnType<typeof signedInAdmin>>;
const TOKEN = 'held-deposits-service-token-0123';
const PERIOD = new Date().toISOString().slice(0, 7);

beforeAll(async () => {
  env = await createAuthEnv('held_deposits');
  projector = env.startProjector();
  [editor, viewer, finance] = await Promise.all([
    signedInAdmin(env, ['user-limit.edit']),
    signedInAdmin(env, ['deposits.view', 'user-limit.view']),
    signedInAdmin(env, ['balance.view', 'deposits.view', 'admin-users.view-admin-audit']),
  ]);
  const app = createAdminApp({
    logger: createLogger({ level: 'silent' }),
    pool: env.pool,
    store: env.store,
    ledger: env.ledger,
    internalApiToken: TOKEN,
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  internalUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => {
    server?.closeAllConnections();
    server?.close(r);
  });
  await projector?.stop();
  await env?.close();
});

let seq = 0;
const internal = (path: string, body: Record<string, unknown>) =>
  call(internalUrl, 'POST', `/internal${path}`, { headers: { 'x-service-token': TOKEN }, body });

/** A completed deposit of `amount` BTC (60 USD); with `txHash` past a deposit limit of 10 USD it completes held. */
const completedDeposit = async (userId: number, amount: string, txHash?: string): Promise<string> => {
  const requested = await internal('/deposits', {
    externalId: `held-${++seq}`,
    userId,
    providerId: 'PROVIDER_A',
    networkId: 'BTC',
    currencyId: 'BTC',
    amount,
    usdAmount: '60',
    ...(txHash ? { txHash } : {}),
  });
  expect(requested.status).toBe(201);
  expect((await internal(`/deposits/${requested.body.id}/complete`, {})).status).toBe(200);
  return requested.body.id as string;
};
const limitedPlayer = async () => {
  const user = await env.makeUser();
  const set = await editor.as('POST', '/user-limits/deposit-loss-limits', {
    body: { userId: user.id, kind: 'deposit', window: '24h', limit: '10' },
  });
  expect(set.status).toBe(200);
  return user;
};
const depositsHeld = async (): Promise<string | undefined> => {
  const liability = await finance.as('GET', `/finance/reports/liability?period=${PERIOD}`);
  expect(liability.status).toBe(200);
  return liability.body.rows.find((r: { currencyId: string }) => r.currencyId === 'BTC')?.depositsHeld;
};
const listed = async (userId: number, id: string) => {
  const list = await viewer.as('GET', `/deposit?sortBy=CREATED_AT&sortOrder=desc&userId=${userId}`);
  return list.body.data.find((d: { id: string }) => d.id === id) as { hold: string | null } | undefined;
};

describe('POST /deposit/{id}/release and POST /deposit/{id}/return', () => {
  it('when a held deposit is released, then the balance rises by exactly its amount, once, and the admin is audited', async () => {
    const user = await limitedPlayer();
    const id = await completedDeposit(user.id, '0.25', '0xheld-1');
    expect(await balanceOf(env, user.id)).toBe('0');
    await eventually(async () => expect(await listed(user.id, id)).toMatchObject({ hold: 'HELD' }));
    await eventually(async () => expect(await depositsHeld()).toBe('0.25'));

    const released = await editor.as('POST', `/deposit/${id}/release`, { body: { reason: 'source of funds checked' } });
    expect(released).toMatchObject({ status: 201, body: { id, status: 'COMPLETE', hold: 'RELEASED', amount: '0.25' } });
    expect(await balanceOf(env, user.id)).toBe('0.25');
    // A retry answers the first outcome without a second posting; the other decision is refused.
    const again = await editor.as('POST', `/deposit/${id}/release`, { body: { reason: 'retry' } });
    expect(again).toMatchObject({ status: 201, body: released.body });
    expect(await balanceOf(env, user.id)).toBe('0.25');
    const other = await editor.as('POST', `/deposit/${id}/return`, { body: { reason: 'too late' } });
    expect(other).toMatchObject({ status: 409, body: { code: 'DEPOSIT_ALREADY_SETTLED' } });
    const { rows } = await env.pool.query(
      `SELECT count(*)::int AS n FROM events WHERE type = 'DepositReleased' AND data->>'depositId' = $1`,
      [id],
    );
    expect(rows[0]).toEqual({ n: 1 });

    await eventually(async () => expect(await listed(user.id, id)).toMatchObject({ hold: 'RELEASED' }));
    await eventually(async () => expect(await depositsHeld()).toBe('0'));
    const trial = await finance.as('GET', `/finance/reports/trial-balance?period=${PERIOD}`);
    for (const t of trial.body.totals) expect(t.total).toBe('0');
    const audit = await eventually(async () => {
      const entries = (await finance.as('GET', `/admin-audit?action=deposit.release&userId=${user.id}`)).body.data;
      expect(entries).toHaveLength(1);
      return entries[0];
    });
    expect(audit).toMatchObject({
      action: 'deposit.release',
      adminUserId: editor.id,
      targetUserId: user.id,
      details: { depositId: id, reason: 'source of funds checked', amount: '0.25' },
    });
  });

  it('when a held deposit is returned, then the balance does not move and it is no longer held', async () => {
    const user = await limitedPlayer();
    const id = await completedDeposit(user.id, '0.5', '0xheld-2');
    const returned = await editor.as('POST', `/deposit/${id}/return`, { body: { reason: 'payer asked for it back' } });
    expect(returned).toMatchObject({ status: 201, body: { id, hold: 'RETURNED' } });
    expect(await balanceOf(env, user.id)).toBe('0');
    expect(await editor.as('POST', `/deposit/${id}/return`, { body: { reason: 'retry' } })).toMatchObject({ status: 201 });
    expect(await editor.as('POST', `/deposit/${id}/release`, { body: { reason: 'x' } })).toMatchObject({
      status: 409,
      body: { code: 'DEPOSIT_ALREADY_SETTLED' },
    });
    await eventually(async () => expect(await listed(user.id, id)).toMatchObject({ hold: 'RETURNED' }));
    await eventually(async () => expect(await depositsHeld()).toBe('0'));
    const trial = await finance.as('GET', `/finance/reports/trial-balance?period=${PERIOD}`);
    expect(trial.body.rows).toContainEqual(
      expect.objectContaining({ currencyId: 'BTC', account: 'house:deposits-returned', balance: '0.5' }),
    );
    for (const t of trial.body.totals) expect(t.total).toBe('0');
  });

  it('when the deposit was not held, then 409 DEPOSIT_NOT_HELD; unknown, 404; without user-limit.edit, 403', async () => {
    const user = await env.makeUser();
    const id = await completedDeposit(user.id, '0.1');
    expect(await editor.as('POST', `/deposit/${id}/release`, { body: { reason: 'x' } })).toMatchObject({
      status: 409,
      body: { code: 'DEPOSIT_NOT_HELD' },
    });
    expect(await editor.as('POST', `/deposit/${id}/return`, { body: { reason: 'x' } })).toMatchObject({
      status: 409,
      body: { code: 'DEPOSIT_NOT_HELD' },
    });
    expect(await editor.as('POST', '/deposit/no-such-deposit/release', { body: { reason: 'x' } })).toMatchObject({
      status: 404,
      body: { code: 'DEPOSIT_NOT_FOUND' },
    });
    expect(await editor.as('POST', `/deposit/${id}/release`, { body: { reason: '  ' } })).toMatchObject({ status: 400 });
    const held = await completedDeposit((await limitedPlayer()).id, '0.1', '0xheld-3');
    expect((await viewer.as('POST', `/deposit/${held}/release`, { body: { reason: 'x' } })).status).toBe(403);
    expect(await balanceOf(env, user.id)).toBe('0.1');
  });
});
