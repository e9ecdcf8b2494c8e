import { isLeft, isRight, type Either } from 'fp-ts/lib/Either.js';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../src/auth/auth-kit.js';
import { authUseCases, type AuthUseCases } from '../../src/auth/use-cases/index.js';
import { AppError } from '../../src/shared/app-error.js';
import { createAuthEnv, footprint, type AuthEnv } from '../support/auth-env.js';

let env: AuthEnv;
let auth: AuthUseCases;
const client: Client = { ip: '198.51.100.7', userAgent: 'use-case test', country: null, referrer: null };

beforeAll(async () => {
  env = await createAuthEnv('authuc');
  auth = authUseCases(env.kit);
});
afterAll(async () => env?.close());

const refusal = <T>(result: Either<unknown, T>): AppError => {
  if (!isLeft(result) || !(result.left instanceof AppError)) throw new Error(`expected an AppError, got ${JSON.stringify(result)}`);
  return result.left;
};
const value = <T>(result: Either<unknown, T>): T => {
  if (!isRight(result)) throw new Error(`expected a value, got ${JSON.stringify(result.left)}`);
  return result.right;
};

describe('auth use cases, called without a transport', () => {
  it('when the password is wrong, then sign-in answers AUTH_INVALID_CREDENTIALS as a value and starts no session', async () => {
    const user = await env.makeUser();
    const before = await footprint(env.pool);
    const refused = refusal(await auth.signIn({ email: user.email, password: 'not the password at all' }, client));
    expect({ class: refused.errorClass, code: refused.code }).toEqual({ class: 'unauthenticated', code: 'AUTH_INVALID_CREDENTIALS' });
    expect(await footprint(env.pool)).toEqual(before);
  });

  it('when the region is blocked or the captcha missing, then admit answers the refusal before anything is read', async () => {
    expect((await auth.admit({ ...client, country: 'kp' }, 'anything'))?.code).toBe('AUTH_GEO_BLOCKED');
    expect((await auth.admit(client, undefined))?.code).toBe('AUTH_RECAPTCHA_TOKEN_MISSING');
  });

  it('when MFA is enabled, then sign-in answers a challenge, a wrong code is refused and the right one opens a session', async () => {
    const user = await env.makeUser();
    const registered = value(await env.kit.activeUser(user.id));
    const { secret } = value(await auth.mfa.setup(registered));
    // Enable with this step's code and sign in with the next one's: each step is accepted once, both lie in the ±1 step window.
    const now = Math.floor(Date.now() / 1000);
    expect(value(await auth.mfa.enable(registered, await generate({ secret, epoch: now }))).mfaEnabled).toBe(true);

    const first = value(await auth.signIn({ email: user.email, password: user.password }, client));
    if (!('mfaToken' in first)) throw new Error('expected an MFA challenge');
    const wrong = await auth.completeMfaSignIn({ mfaToken: first.mfaToken, code: '000000' }, client);
    expect(refusal(wrong).code).toBe('AUTH_INVALID_MFA_CODE');
    const code = await generate({ secret, epoch: now + 30 });
    const done = value(await auth.completeMfaSignIn({ mfaToken: first.mfaToken, code }, client));
    expect(done.user.userId).toBe(user.id);
    expect((await env.kit.authenticator.authenticateToken(done.tokens.accessToken)).userId).toBe(user.id);
  });

  it('when a refresh token is used twice, then the second refresh ends the session and says so', async () => {
    const user = await env.makeUser();
    const signedIn = value(await auth.signIn({ email: user.email, password: user.password }, client));
    if (!('tokens' in signedIn)) throw new Error('expected a session');
    value(await auth.refresh(signedIn.tokens.refreshToken));
    const reused = await auth.refresh(signedIn.tokens.refreshToken);
    expect(isLeft(reused) && reused.left.ended && reused.left.error.code).toBe('UNAUTHORIZED');
  });

  it("when a verified identity carries a user's e-mail, then it is refused, and linked only from that user's side, once", async () => {
    const user = await env.makeUser();
    const identity = { provider: 'google' as const, subject: `sub-${user.id}`, email: user.email, emailVerified: true };
    const refused = await auth.signInWithIdentity(identity, client);
    expect(isLeft(refused) && 'code' in refused.left && refused.left.code).toBe('AUTH_IDENTITY_NOT_LINKED');
    expect(await env.users.idByKey('google', identity.subject)).toBeUndefined();
    const [a, b] = await Promise.all([auth.linkIdentity(user.id, identity), auth.linkIdentity(user.id, identity)]);
    expect([value(a), value(b)]).toEqual([user.id, user.id]);
    expect(await env.users.idByKey('google', identity.subject)).toBe(user.id);
    const state = await env.users.load(user.id);
    expect(state.status === 'registered' && state.identities.filter((i) => i.provider === 'google')).toHaveLength(1);
    const signedIn = value(await auth.signInWithIdentity(identity, client));
    expect('tokens' in signedIn && signedIn.needsUsername).toBe(false);
  });
});
