import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Projector } from '../../src/projections/index.js';
import { call, createAuthEnv, signIn, type AuthEnv } from '../support/auth-env.js';
import { untilVisible } from '../support/audit-ledger.js';
import { signedInAdmin } from '../support/money-env.js';

let env: AuthEnv;
let projector: Projector;
let officer: Awaited<ReturnType<typeof signedInAdmin>>;
let viewer: Awaited<ReturnType<typeof signedInAdmin>>;
let superadmin: Awaited<ReturnType<typeof signedInAdmin>>;

beforeAll(async () => {
  env = await createAuthEnv('user_kyc');
  projector = env.startProjector();
  [officer, viewer, superadmin] = await Promise.all([
    signedInAdmin(env, ['user.view', 'kyc.view', 'kyc.edit', 'admin-users.view-admin-audit']),
    signedInAdmin(env, ['user.view', 'kyc.view']),
    signedInAdmin(env, [], true),
  ]);
});
afterAll(async () => {
  await env?.close();
});

const settled = async () => projector.waitFor(await untilVisible(env.store, env.pool));

describe('PUT /user/{id}/kyc', () => {
  it('when an officer sets a level, then GET /user/{id}, the users list and /user/me show it, and the admin audit log names it', async () => {
    const player = await env.makeUser();
    const before = await officer.as('GET', `/user/${player.id}`);
    expect(before.body.kyc).toBeNull();

    const reply = await officer.as('PUT', `/user/${player.id}/kyc`, { body: { level: 'LEVEL_2', verificationPending: true } });
    expect(reply.status).toBe(200);
    const kyc = {
      gender: null,
      level: 'LEVEL_2',
      firstName: null,
      lastName: null,
      countryCode: null,
      address: null,
      postalCode: null,
      city: null,
      occupation: null,
      dateOfBirth: null,
      verificationPending: true,
      userId: player.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    };
    expect(reply.body.kyc).toEqual(kyc);
    expect((await officer.as('GET', `/user/${player.id}`)).body.kyc).toEqual(kyc);

    await settled();
    // The list (SuperAdmin only) reads the users read model.
    const listed = await superadmin.as('GET', `/user/all?search=${player.username}&sortBy=id&sortOrder=asc`);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: player.id, kyc })]);

    const { accessToken } = await signIn(env, player);
    const me = await call(env.publicUrl, 'GET', '/user/me', { cookies: { access_token: accessToken } });
    expect(me.body).toMatchObject({ id: player.id, kycLevel: 'LEVEL_2' });

    // Left out, the pending flag stays as it was.
    const lowered = await officer.as('PUT', `/user/${player.id}/kyc`, { body: { level: 'LEVEL_1' } });
    expect(lowered.body.kyc).toMatchObject({ level: 'LEVEL_1', verificationPending: true, createdAt: reply.body.kyc.createdAt });

    await settled();
    const audit = await officer.as('GET', `/admin-audit?userId=${player.id}&action=user.set-kyc-level`);
    expect(audit.status).toBe(200);
    expect(audit.body.data).toEqual([
      expect.objectContaining({
        adminUserId: officer.id,
        targetUserId: player.id,
        details: { level: 'LEVEL_1', verificationPending: true },
      }),
      expect.objectContaining({
        adminUserId: officer.id,
        targetUserId: player.id,
        details: { level: 'LEVEL_2', verificationPending: true },
      }),
    ]);
  });

  it('when the caller lacks kyc.edit, then 403 and the level is unchanged', async () => {
    const player = await env.makeUser();
    const reply = await viewer.as('PUT', `/user/${player.id}/kyc`, { body: { level: 'LEVEL_3' } });
    expect(reply.status).toBe(403);
    expect(reply.body.code).toBe('FORBIDDEN');
    expect((await viewer.as('GET', `/user/${player.id}`)).body.kyc).toBeNull();
  });

  it('when the user does not exist, then 404 USER_NOT_FOUND', async () => {
    const reply = await officer.as('PUT', '/user/987654321/kyc', { body: { level: 'LEVEL_1' } });
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('USER_NOT_FOUND');
  });

  it('when the level is not one of LEVEL_0 to LEVEL_4, then 400 naming body.level', async () => {
    const player = await env.makeUser();
    for (const level of ['LEVEL_5', 'level_1', 1]) {
      const reply = await officer.as('PUT', `/user/${player.id}/kyc`, { body: { level } });
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(reply.body.details)).toContain('body.level');
    }
  });

  it('when an officer sets their own level, then 403 and nothing is recorded', async () => {
    const reply = await officer.as('PUT', `/user/${officer.id}/kyc`, { body: { level: 'LEVEL_4' } });
    expect(reply.status).toBe(403);
    expect((await officer.as('GET', `/user/${officer.id}`)).body.kyc).toBeNull();
  });
});
