import { Router, type Request } from 'express';
import { isLeft } from 'fp-ts/lib/Either.js';
import { publicUser, type AuthKit } from '../auth/auth-kit.js';
import { clearAuthCookies, readCookie, REFRESH_COOKIE, setAuthCookies } from '../auth/cookies.js';
import { assertNotCrossSite } from '../auth/csrf.js';
import { hashPassword } from '../auth/passwords.js';
import type { RegisteredUser } from '../domain/user/user.state.js';
import { SignInBody, SignUpBody, Verify2faBody } from './auth.schemas.js';
import { authError, HttpError, userErrorToHttp } from './errors.js';
import { parseBody } from './validate.js';
import { documentedRoutes } from './openapi.js';
import { CaptchaHeaders, SessionResponse, SignInResponse } from './api-docs.js';
import { SuccessResponse } from './openapi.schemas.js';
import { z } from './validate.js';

const address = (req: Request): string => req.ip ?? 'unknown';

/** POST /auth/sign-up, /auth/sign-in, /auth/verify-2fa, /auth/refresh; DELETE /session/log-out/current. */
export const authRoutes = (kit: AuthKit): Router => {
  const router = Router();
  const route = documentedRoutes(router);

  route('post', '/auth/sign-up', { kind: 'none' }, {
    summary: 'Sign up (captcha required); sets the access_token and refresh_token cookies',
    request: { headers: CaptchaHeaders, body: SignUpBody },
    responses: { 201: { description: 'The new user with its tokens', schema: SessionResponse } },
  }, async (req, res) => {
    kit.geoCheck(req);
    await kit.captcha(req);
    const body = parseBody(SignUpBody, req);
    const registered = await kit.users.register({
      email: body.email, username: body.username, passwordHash: await hashPassword(body.password), country: body.country,
      referrerCode: body.referrerCode ?? null, marketingOptIn: body.marketingOptIn ?? false, provider: 'password',
      registration: { ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null, country: req.get(kit.settings.trustedCountryHeader) ?? body.country, referrer: req.get('referer') ?? null },
    });
    if (isLeft(registered)) throw userErrorToHttp(registered.left);
    const tokens = await kit.startSession(registered.right.userId, req, res);
    res.status(201).json({ user: publicUser(registered.right), ...tokens });
  });

  route('post', '/auth/sign-in', { kind: 'none' }, {
    summary: 'Sign in (captcha required); sets both cookies unless mfaRequired, which returns an MFA challenge token instead',
    request: { headers: CaptchaHeaders, body: SignInBody },
    responses: { 200: { description: 'The user, and mfaRequired with mfaToken when a second factor is needed', schema: SignInResponse } },
  }, async (req, res) => {
    kit.geoCheck(req);
    await kit.captcha(req);
    const body = parseBody(SignInBody, req);
    const account = `email:${body.email.toLowerCase()}`;
    await kit.throttle.check(account, address(req));
    const userId = await kit.users.idByKey('email', body.email);
    const stored = userId === undefined ? undefined
      : (await kit.pool.query<{ password_hash: string | null }>('SELECT password_hash FROM user_credentials WHERE user_id = $1', [userId])).rows[0]?.password_hash;
    // Unknown e-mails verify against a dummy hash: same answer, same work.
    if (!(await kit.passwords.verify(stored, body.password)) || userId === undefined) {
      await kit.throttle.fail(account, address(req));
      throw authError('invalidCredentials');
    }
    const user = await activeUser(userId);
    await kit.throttle.succeed(account);
    if (user.mfaEnabled) {
      res.json({ user: publicUser(user), mfaRequired: true, mfaToken: await kit.tokens.signMfaChallenge(userId) });
      return;
    }
    await kit.startSession(userId, req, res);
    res.json({ user: publicUser(user) });
  });

  route('post', '/auth/verify-2fa', { kind: 'none' }, {
    summary: 'Complete a sign-in with the two-factor code; sets both cookies',
    request: { body: Verify2faBody },
    responses: { 200: { description: 'The user with its tokens', schema: SessionResponse } },
  }, async (req, res) => {
    const body = parseBody(Verify2faBody, req);
    const challenge = await kit.tokens.verifyMfaChallenge(body.mfaToken);
    if (typeof challenge === 'string') throw authError('unauthorized', 'Invalid or expired MFA token');
    const used = await kit.pool.query('SELECT 1 FROM mfa_challenges_used WHERE jti = $1', [challenge.jti]);
    if (used.rows.length > 0) throw authError('unauthorized', 'MFA token already used');
    const account = `mfa:${challenge.userId}`;
    await kit.throttle.check(account, address(req));
    if (!(await kit.mfa.check(challenge.userId, body.code))) {
      await kit.throttle.fail(account, address(req));
      throw authError('invalidMfaCode');
    }
    const spent = await kit.pool.query('INSERT INTO mfa_challenges_used (jti, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [challenge.jti, challenge.expiresAt]);
    if (spent.rowCount === 0) throw authError('unauthorized', 'MFA token already used');
    const user = await activeUser(challenge.userId);
    await kit.throttle.succeed(account);
    const tokens = await kit.startSession(user.userId, req, res);
    res.json({ user: publicUser(user), ...tokens });
  });

  route('post', '/auth/refresh', { kind: 'none' }, {
    summary: 'Rotate the refresh_token cookie and issue a new access token',
    responses: { 200: { description: 'The new access token', schema: z.object({ accessToken: z.string() }) } },
  }, async (req, res) => {
    const token = readCookie(req, REFRESH_COOKIE);
    if (!token) throw authError('unauthorized', 'No refresh token');
    assertNotCrossSite(req, kit.settings.allowedOrigins);
    const session = await kit.sessions.rotate(token);
    if (typeof session === 'string') {
      clearAuthCookies(res, kit.cookies);
      throw authError('unauthorized', session === 'reused' ? 'Refresh token reuse: the session was revoked' : 'Invalid refresh token');
    }
    await activeUser(session.userId);
    const accessToken = await kit.tokens.signAccess({ userId: session.userId, sessionId: session.id });
    setAuthCookies(res, kit.cookies, { accessToken, refreshToken: session.refreshToken });
    res.json({ accessToken });
  });

  route('delete', '/session/log-out/current', { kind: 'auth' }, {
    summary: 'Log out: ends the session and clears the cookies',
    responses: { 200: { description: 'Logged out', schema: SuccessResponse } },
  }, kit.authenticator.required('public'), async (req, res) => {
    if (req.auth?.sessionId) await kit.sessions.delete(req.auth.sessionId);
    clearAuthCookies(res, kit.cookies);
    res.json({ success: true });
  });

  /** The registered, not banned user. */
  const activeUser = async (userId: number): Promise<RegisteredUser> => {
    const access = await kit.users.access(userId);
    if (!access) throw new HttpError(401, 'UNAUTHORIZED', 'Unknown user');
    if (access.isBanned) throw authError('banned');
    return access.state;
  };

  return router;
};
