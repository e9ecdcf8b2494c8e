import { Router } from 'express';
import { publicUser, type AuthKit } from '../auth/auth-kit.js';
import { authError } from '../auth/auth.errors.js';
import { authUseCases } from '../auth/use-cases/index.js';
import { assertNotCrossSite, clearAuthCookies, cookiePolicy, readCookie, REFRESH_COOKIE, setAuthCookies } from './auth.adapter.js';
import { clientOf, refuseIf, requireAuth, valueOf } from './auth.adapter.js';
import { SignInBody, SignUpBody, Verify2faBody } from './auth.schemas.js';
import { parseBody } from './validate.js';
import { documentedRoutes } from './openapi.js';
import { CaptchaHeaders, SessionResponse, SignInResponse } from './api-docs.js';
import { SuccessResponse } from './openapi.schemas.js';
import { z } from './validate.js';

/** What the captcha, the geo block and the attempt throttle (auth.admit) refuse with, before the step itself. */
const ADMIT_ERRORS = {
  400: ['AUTH_RECAPTCHA_TOKEN_MISSING', 'AUTH_INVALID_CAPTCHA'],
  403: ['AUTH_GEO_BLOCKED'],
  429: ['TOO_MANY_REQUESTS'],
} as const;

export const authRoutes = (kit: AuthKit): Router => {
  const router = Router();
  const route = documentedRoutes(router);
  const auth = authUseCases(kit);
  const cookies = cookiePolicy(kit.settings);

  route(
    'post',
    '/auth/sign-up',
    { kind: 'none' },
    {
      summary: 'Sign up (captcha required); sets the access_token and refresh_token cookies',
      request: { headers: CaptchaHeaders, body: SignUpBody },
      responses: { 201: { description: 'The new user with its tokens', schema: SessionResponse } },
      errors: { ...ADMIT_ERRORS, 409: ['AUTH_USER_EXISTS'] },
    },
    async (req, res) => {
      const client = clientOf(req, kit.settings);
      refuseIf(await auth.admit(client, req.get('x-captcha-token')));
      const { user, tokens } = valueOf(await auth.signUp(parseBody(SignUpBody, req), client));
      setAuthCookies(res, cookies, tokens);
      res.status(201).json({ user: publicUser(user), ...tokens });
    },
  );

  route(
    'post',
    '/auth/sign-in',
    { kind: 'none' },
    {
      summary: 'Sign in (captcha required); sets both cookies unless mfaRequired, which returns an MFA challenge token instead',
      request: { headers: CaptchaHeaders, body: SignInBody },
      responses: { 200: { description: 'The user, and mfaRequired with mfaToken when a second factor is needed', schema: SignInResponse } },
      errors: {
        ...ADMIT_ERRORS,
        401: ['AUTH_INVALID_CREDENTIALS'],
        403: [...ADMIT_ERRORS[403], 'USER_BANNED', 'AUTH_STAFF_PASSWORD_ONLY'],
      },
    },
    async (req, res) => {
      const client = clientOf(req, kit.settings);
      refuseIf(await auth.admit(client, req.get('x-captcha-token')));
      const signedIn = valueOf(await auth.signIn(parseBody(SignInBody, req), client));
      if ('mfaToken' in signedIn) {
        res.json({ user: publicUser(signedIn.user), mfaRequired: true, mfaToken: signedIn.mfaToken });
        return;
      }
      setAuthCookies(res, cookies, signedIn.tokens);
      res.json({ user: publicUser(signedIn.user) });
    },
  );

  route(
    'post',
    '/auth/verify-2fa',
    { kind: 'none' },
    {
      summary: 'Complete a sign-in with the two-factor code; sets both cookies',
      request: { body: Verify2faBody },
      responses: { 200: { description: 'The user with its tokens', schema: SessionResponse } },
      errors: { 401: ['AUTH_INVALID_MFA_CODE', 'UNAUTHORIZED'], 403: ['USER_BANNED'], 429: ['TOO_MANY_REQUESTS'] },
    },
    async (req, res) => {
      const { user, tokens } = valueOf(await auth.completeMfaSignIn(parseBody(Verify2faBody, req), clientOf(req, kit.settings)));
      setAuthCookies(res, cookies, tokens);
      res.json({ user: publicUser(user), ...tokens });
    },
  );

  route(
    'post',
    '/auth/refresh',
    { kind: 'none' },
    {
      summary: 'Rotate the refresh_token cookie and issue a new access token',
      responses: { 200: { description: 'The new access token', schema: z.object({ accessToken: z.string() }) } },
      errors: { 401: ['UNAUTHORIZED'], 403: ['FORBIDDEN', 'USER_BANNED'] },
    },
    async (req, res) => {
      const token = readCookie(req, REFRESH_COOKIE);
      if (!token) throw authError('unauthorized', 'No refresh token');
      assertNotCrossSite(req, kit.settings.allowedOrigins);
      const refreshed = await auth.refresh(token);
      if (refreshed._tag === 'Left') {
        if (refreshed.left.ended) clearAuthCookies(res, cookies);
        throw refreshed.left.error;
      }
      setAuthCookies(res, cookies, refreshed.right);
      res.json({ accessToken: refreshed.right.accessToken });
    },
  );

  route(
    'delete',
    '/session/log-out/current',
    { kind: 'auth' },
    {
      summary: 'Log out: ends the session and clears the cookies',
      responses: { 200: { description: 'Logged out', schema: SuccessResponse } },
    },
    requireAuth(kit.authenticator, 'public'),
    async (req, res) => {
      await auth.logOut(req.auth?.sessionId ?? null);
      clearAuthCookies(res, cookies);
      res.json({ success: true });
    },
  );

  return router;
};
