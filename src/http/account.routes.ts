import { Router } from 'express';
import { publicUser, type AuthKit } from '../auth/auth-kit.js';
import { mfaEnrolmentUseCases } from '../auth/use-cases/mfa-enrolment.js';
import { authOf, requireAuth, valueOf } from './auth.adapter.js';
import type { Ledger } from '../commands/ledger.types.js';
import { MfaCodeBody, SetupUsernameBody } from './auth.schemas.js';
import { parseBody } from './validate.js';
import { documentedRoutes } from './openapi.js';
import { PublicUser, UserResponse } from './api-docs.js';
import { UntypedObject } from './openapi.schemas.js';
import { orThrowUser } from '../commands/errors.js';

export const accountRoutes = (kit: AuthKit, ledger: Pick<Ledger, 'balances'>): Router => {
  const router = Router();
  const route = documentedRoutes(router);
  const auth = requireAuth(kit.authenticator, 'public');
  const mfa = mfaEnrolmentUseCases(kit);

  route(
    'get',
    '/user/me',
    { kind: 'auth' },
    {
      summary: 'The signed-in user (a session-validity probe)',
      responses: { 200: { description: 'The public user with balances, KYC level and MFA status', schema: PublicUser } },
    },
    auth,
    async (req, res) => {
      const { user, userId } = authOf(req);
      const balances = (await ledger.balances(userId)).map(({ currencyId, balance }) => ({ currencyId, balance }));
      res.json({
        id: userId,
        username: user.username,
        email: user.email,
        country: user.country,
        balances,
        kycLevel: 'LEVEL_0',
        mfaEnabled: user.mfaEnabled,
        roles: user.roles,
      });
    },
  );

  route(
    'post',
    '/auth/mfa/setup',
    { kind: 'auth' },
    {
      summary: 'Start two-factor enrolment',
      addition: true,
      responses: { 200: { description: 'The pending secret and its otpauth URL', schema: UntypedObject } },
    },
    auth,
    async (req, res) => {
      res.json(valueOf(await mfa.setup(authOf(req).user)));
    },
  );

  // Enabling and disabling take the same code and answer the same user.
  for (const [action, summary] of [
    ['enable', 'Confirm two-factor enrolment with a code'],
    ['disable', 'Turn two-factor authentication off with a code'],
  ] as const) {
    route(
      'post',
      `/auth/mfa/${action}`,
      { kind: 'auth' },
      { summary, addition: true, request: { body: MfaCodeBody }, responses: { 200: { description: 'The user', schema: UserResponse } } },
      auth,
      async (req, res) => {
        const { user } = authOf(req);
        const { code } = parseBody(MfaCodeBody, req);
        res.json({ user: publicUser(valueOf(await mfa[action](user, code))) });
      },
    );
  }

  route(
    'post',
    '/auth/setup-username',
    { kind: 'auth' },
    {
      summary: 'Choose a username (accounts created through an identity provider)',
      addition: true,
      request: { body: SetupUsernameBody },
      responses: { 200: { description: 'The user', schema: UserResponse } },
    },
    auth,
    async (req, res) => {
      const { userId } = authOf(req);
      const { username } = parseBody(SetupUsernameBody, req);
      res.json({ user: publicUser(orThrowUser(await kit.users.execute(userId, { type: 'SetUsername', data: { username } }, null))) });
    },
  );

  return router;
};
