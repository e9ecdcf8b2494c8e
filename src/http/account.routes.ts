import { Router } from 'express';
import { publicUser, type AuthKit } from '../auth/auth-kit.js';
import { mfaEnrolmentUseCases } from '../auth/use-cases/mfa-enrolment.js';
import { credentialsChangeUseCases } from '../auth/use-cases/credentials-change.js';
import { authOf, clearAuthCookies, clientOf, cookiePolicy, requireAuth, requireSession, setAuthCookies, valueOf } from './auth.adapter.js';
import type { Ledger } from '../commands/ledger.types.js';
import { MfaCodeBody, PasswordChangeBody, SetupUsernameBody } from './auth.schemas.js';
import { parseBody } from './validate.js';
import { documentedRoutes } from './openapi.js';
import { PublicUser, SessionResponse, UserResponse } from './api-docs.js';
import { UntypedObject } from './openapi.schemas.js';
import { orThrowUser } from '../commands/errors.js';

export const accountRoutes = (kit: AuthKit, ledger: Pick<Ledger, 'balances'>): Router => {
  const router = Router();
  const route = documentedRoutes(router);
  const auth = requireAuth(kit.authenticator, 'public');
  // MFA, the password and the account's sessions are managed from a session only: an API key never reaches them.
  const session = requireSession(kit.authenticator, 'public');
  const mfa = mfaEnrolmentUseCases(kit);
  const credentials = credentialsChangeUseCases(kit);
  const cookies = cookiePolicy(kit.settings);
  const SESSION_ONLY = 'Needs a signed-in session: an API key is refused (403 AUTH_SESSION_REQUIRED).';

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
        kycLevel: user.kyc?.level ?? 'LEVEL_0',
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
      description: SESSION_ONLY,
      addition: true,
      responses: { 200: { description: 'The pending secret and its otpauth URL', schema: UntypedObject } },
    },
    session,
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
      {
        summary,
        description: SESSION_ONLY,
        addition: true,
        request: { body: MfaCodeBody },
        responses: { 200: { description: 'The user', schema: UserResponse } },
      },
      session,
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
      errors: { 409: ['USERNAME_ALREADY_SET', 'AUTH_USER_EXISTS'] },
    },
    auth,
    async (req, res) => {
      const { userId } = authOf(req);
      const { username } = parseBody(SetupUsernameBody, req);
      res.json({ user: publicUser(orThrowUser(await kit.users.execute(userId, { type: 'SetUsername', data: { username } }, null))) });
    },
  );

  route(
    'post',
    '/auth/password',
    { kind: 'auth' },
    {
      summary: 'Change the password: ends every session, refresh token and API key of the account, then opens a new session',
      description: SESSION_ONLY,
      addition: true,
      request: { body: PasswordChangeBody },
      responses: { 200: { description: 'The user with the new session tokens (also set as cookies)', schema: SessionResponse } },
    },
    session,
    async (req, res) => {
      const { userId, user } = authOf(req);
      const body = parseBody(PasswordChangeBody, req);
      const tokens = valueOf(await credentials.changePassword(userId, body, clientOf(req, kit.settings)));
      setAuthCookies(res, cookies, tokens);
      res.json({ user: publicUser(user), ...tokens });
    },
  );

  route(
    'post',
    '/auth/sign-out-everywhere',
    { kind: 'auth' },
    {
      summary: "End every session, refresh token and API key of the caller's account (this one included)",
      description: SESSION_ONLY,
      addition: true,
      responses: { 204: { description: 'Signed out everywhere; the cookies are cleared' } },
    },
    session,
    async (req, res) => {
      await credentials.signOutEverywhere(authOf(req).userId);
      clearAuthCookies(res, cookies);
      res.status(204).end();
    },
  );

  return router;
};
