import { Router } from 'express';
import { isLeft } from 'fp-ts/lib/Either.js';
import { publicUser, type AuthKit } from '../auth/auth-kit.js';
import { authOf } from '../auth/authenticator.js';
import type { Ledger } from '../commands/ledger.types.js';
import { MfaCodeBody, SetupUsernameBody } from './auth.schemas.js';
import { HttpError, orThrowUser, userErrorToHttp } from './errors.js';
import { parseBody } from './validate.js';

const invalidCode = () => new HttpError(400, 'AUTH_INVALID_MFA_CODE', 'The two-factor code is invalid');

/** GET /user/me, MFA enrolment, POST /auth/setup-username: all for the signed-in user. */
export const accountRoutes = (kit: AuthKit, ledger: Pick<Ledger, 'balances'>): Router => {
  const router = Router();
  const auth = kit.authenticator.required('public');

  router.get('/user/me', auth, async (req, res) => {
    const { user, userId } = authOf(req);
    const balances = (await ledger.balances(userId)).map(({ currencyId, balance }) => ({ currencyId, balance }));
    res.json({ id: userId, username: user.username, email: user.email, country: user.country, balances, kycLevel: 'LEVEL_0', mfaEnabled: user.mfaEnabled, roles: user.roles });
  });

  router.post('/auth/mfa/setup', auth, async (req, res) => {
    const { user, userId } = authOf(req);
    if (user.mfaEnabled) throw userErrorToHttp({ _tag: 'MfaAlreadyEnabled', userId });
    res.json(await kit.mfa.setup(userId, user.email ?? user.username ?? `user-${userId}`));
  });

  router.post('/auth/mfa/enable', auth, async (req, res) => {
    const { user, userId } = authOf(req);
    const { code } = parseBody(MfaCodeBody, req);
    if (user.mfaEnabled) throw userErrorToHttp({ _tag: 'MfaAlreadyEnabled', userId });
    if (!(await kit.mfa.confirmPending(userId, code))) throw invalidCode();
    res.json({ user: publicUser(orThrowUser(await kit.users.execute(userId, { type: 'EnableMfa', data: {} }, null))) });
  });

  router.post('/auth/mfa/disable', auth, async (req, res) => {
    const { user, userId } = authOf(req);
    const { code } = parseBody(MfaCodeBody, req);
    if (!user.mfaEnabled) throw userErrorToHttp({ _tag: 'MfaNotEnabled', userId });
    if (!(await kit.mfa.check(userId, code))) throw invalidCode();
    const done = await kit.users.execute(userId, { type: 'DisableMfa', data: {} }, null);
    if (isLeft(done)) throw userErrorToHttp(done.left);
    await kit.mfa.clear(userId);
    res.json({ user: publicUser(done.right) });
  });

  router.post('/auth/setup-username', auth, async (req, res) => {
    const { userId } = authOf(req);
    const { username } = parseBody(SetupUsernameBody, req);
    res.json({ user: publicUser(orThrowUser(await kit.users.execute(userId, { type: 'SetUsername', data: { username } }, null))) });
  });

  return router;
};
