import type { AuthKit } from '../auth-kit.js';
import { identitySignInUseCases } from './identity-sign-in.js';
import { mfaEnrolmentUseCases } from './mfa-enrolment.js';
import { sessionUseCases } from './session.js';
import { signInUseCases } from './sign-in.js';

export type { ExternalIdentity, IdentitySignedIn } from './identity-sign-in.js';
export type { PasswordSignIn, SignedIn, SignUp } from './sign-in.js';
export type { RefreshRefusal } from './session.js';

export const authUseCases = (kit: AuthKit) => ({
  ...signInUseCases(kit),
  ...sessionUseCases(kit),
  ...identitySignInUseCases(kit),
  mfa: mfaEnrolmentUseCases(kit),
});

export type AuthUseCases = ReturnType<typeof authUseCases>;
