import { isLeft } from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/commands/ledger.js';
import { amlHooks, createAml } from '../../src/compliance/aml.js';
import { amlSettingsFrom } from '../../src/compliance/aml.settings.js';
import { amlStream } from '../../src/domain/aml/aml.js';
import { createAuthEnv, type AuthEnv } from '../support/auth-env.js';
import { signedInAdmin } from '../support/money-env.js';

let env: AuthEnv;
let officer: Awaited<ReturnType<typeof signedInAdmin>>;
let viewer: Awaited<ReturnType<typeof signedInAdmin>>;
let ledger: ReturnType<typeof createLedger>;

beforeAll(async () => {
  env = await createAuthEnv('aml-flags');
  [officer, viewer] = await Promise.all([signedInAdmin(env, ['kyc.view', 'kyc.edit']), signedInAdmin(env, ['kyc.view'])]);
  const aml = createAml({ store: env.store, pool: env.pool, settings: amlSettingsFrom({ AML_THRESHOLD_USD: '100' }) });
  ledger = createLedger({ store: env.store, pool: env.pool, aml: amlHooks(aml, env.users) });
});
afterAll(async () => {
  await env?.close();
});

const flagged = async () => {
  const user = await env.makeUser();
  const d = await ledger.requestDeposit({
    externalId: `aml-api-${user.id}`,
    userId: user.id,
    providerId: 'TEST',
    networkId: 'ETH',
    currencyId: 'USDT',
    amount: '150',
    usdAmount: '150',
  });
  if (isLeft(d)) throw new Error(d.left._tag);
  const list = await viewer.as('GET', '/aml-flags?status=OPEN');
  const flag = (list.body.data as { id: string; userId: number }[]).find((f) => f.userId === user.id);
  if (!flag) throw new Error('no flag raised');
  return { user, flag };
};

describe('AML flags in the back office', () => {
  it('when an officer assigns and clears a flag with a note, then it is listed as cleared, and both changes are events naming the officer', async () => {
    const { user, flag } = await flagged();
    expect(flag).toMatchObject({
      kind: 'linked-transactions',
      linkedUsd: '150',
      thresholdUsd: '100',
      status: 'OPEN',
      assigneeUserId: null,
    });
    const assigned = await officer.as('POST', `/aml-flags/${flag.id}/assign`, { body: {} });
    expect(assigned).toMatchObject({ status: 200, body: { assigneeUserId: officer.id } });
    const noNote = await officer.as('POST', `/aml-flags/${flag.id}/clear`, { body: { note: '  ' } });
    expect(noNote).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    const cleared = await officer.as('POST', `/aml-flags/${flag.id}/clear`, { body: { note: 'wages, documents on file' } });
    expect(cleared).toMatchObject({
      status: 200,
      body: { status: 'CLEARED', note: 'wages, documents on file', clearedByUserId: officer.id },
    });
    expect((await officer.as('POST', `/aml-flags/${flag.id}/clear`, { body: { note: 'again' } })).body.code).toBe('AML_FLAG_CLEARED');
    const all = await viewer.as('GET', '/aml-flags');
    expect((all.body.data as { id: string }[]).find((f) => f.id === flag.id)).toMatchObject({ status: 'CLEARED' });
    const events = await env.store.readStream(amlStream(user.id));
    expect(events.map((e) => [e.type, e.data.adminUserId ?? null])).toEqual([
      ['AmlFlagRaised', null],
      ['AmlFlagAssigned', officer.id],
      ['AmlFlagCleared', officer.id],
    ]);
  });

  it('when an admin without kyc.edit assigns or clears, then 403 and nothing changes; an unknown flag is 404', async () => {
    const { flag } = await flagged();
    expect((await viewer.as('POST', `/aml-flags/${flag.id}/assign`, { body: {} })).status).toBe(403);
    expect((await viewer.as('POST', `/aml-flags/${flag.id}/clear`, { body: { note: 'x' } })).status).toBe(403);
    expect((await officer.as('POST', '/aml-flags/nope/clear', { body: { note: 'x' } })).body.code).toBe('AML_FLAG_NOT_FOUND');
  });
});
