import { Router } from 'express';
import { isLeft } from 'fp-ts/lib/Either.js';
import { publicUser, type AuthKit } from '../auth/auth-kit.js';
import { authOf } from '../auth/authenticator.js';
import type { Ledger } from '../commands/ledger.types.js';
import { MfaCodeBody, SetupUsernameBody } from './auth.schemas.js';
import { HttpError, orThrowUser, userErrorToHttp } from './errors.js';
import { parseBody } from './validate.js';
import { documentedRoutes } from './openapi.js';
import { PublicUser, UserResponse } from './api-docs.js';
import { UntypedObject } from './openapi.schemas.js';

const invalidCode = () => new HttpError(400, 'AUTH_INVALID_MFA_CODE', 'The two-factor code is invalid');

/** GET /user/me, MFA enrolment, POST /auth/setup-username: all for the signed-in user. */
export const accountRoutes = (kit: AuthKit, ledger: Pick<Ledger, 'balances'>): Router => {
  const router = Router();
  const route = documentedRoutes(router);
  const auth = kit.authenticator.required('public');

  route('get', '/user/me', { kind: 'auth' }, {
    summary: 'The signed-in user (a session-validity probe)',
    responses: { 200: { description: 'The public user with balances, KYC level and MFA status', schema: PublicUser } },
  }, auth, async (req, res) => {
    const { user, userId } = authOf(req);
    const balances = (await ledger.balances(userId)).map(({ currencyId, balance }) => ({ currencyId, balance }));
    res.json({ id: userId, username: user.username, email: user.email, country: user.country, balances, kycLevel: 'LEVEL_0', mfaEnabled: user.mfaEnabled, roles: user.roles });
  });

  route('post', '/auth/mfa/setup', { kind: 'auth' }, {
    summary: 'Start two-factor enrolment', addition: true,
    responses: { 200: { description: 'The pending secret and its otpauth URL', schema: UntypedObject } },
  }, auth, async (req, res) => {
    const { user, userId } = authOf(req);
    if (user.mfaEnabled) throw userErrorToHttp({ _tag: 'MfaAlreadyEnabled', userId });
    res.json(await kit.mfa.setup(userId, user.email ?? user.username ?? `user-${userId}`));
  });

  route('post', '/auth/mfa/enable', { kind: 'auth' }, {
    summary: 'Confirm two-factor enrolment with a code', addition: true, request: { body: MfaCodeBody },
    responses: { 200: { description: 'The user', schema: UserResponse } },
  }, auth, async (req, res) => {
    const { user, userId } = authOf(req);
    const { code } = parseBody(MfaCodeBody, req);
    if (user.mfaEnabled) throw userErrorToHttp({ _tag: 'MfaAlreadyEnabled', userId });
    if (!(await kit.mfa.confirmPending(userId, code))) throw invalidCode();
    res.json({ user: publicUser(orThrowUser(await kit.users.execute(userId, { type: 'EnableMfa', data: {} }, null))) });
  });

  route('post', '/auth/mfa/disable', { kind: 'auth' }, {
    summary: 'Turn two-factor authentication off with a code', addition: true, request: { body: MfaCodeBody },
    responses: { 200: { description: 'The user', schema: UserResponse } },
  }, auth, async (req, res) => {
    const { user, userId } = authOf(req);
    const { code } = parseBody(MfaCodeBody, req);
    if (!user.mfaEnabled) throw userErrorToHttp({ _tag: 'MfaNotEnabled', userId });
    if (!(await kit.mfa.check(userId, code))) throw invalidCode();
    const done = await kit.users.execute(userId, { type: 'DisableMfa', data: {} }, null);
    if (isLeft(done)) throw userErrorToHttp(done.left);
    await kit.mfa.clear(userId);
    res.json({ user: publicUser(done.right) });
  });

  route('post', '/auth/setup-username', { kind: 'auth' }, {
    summary: 'Choose a username (accounts created through an identity provider)', addition: true, request: { body: SetupUsernameBody },
    responses: { 200: { description: 'The user', schema: UserResponse } },
  }, auth, async (req, res) => {
    const { userId } = authOf(req);
    const { username } = parseBody(SetupUsernameBody, req);
    res.json({ user: publicUser(orThrowUser(await kit.users.execute(userId, { type: 'SetUsername', data: { username } }, null))) });
  });

  return router;
};
