import type { AuthKit } from '../../auth/auth-kit.js';
import { identitySignInUseCases } from '../../auth/use-cases/identity-sign-in.js';
import { cookiePolicy, setAuthCookies } from '../auth.adapter.js';
import { clientOf, valueOf } from '../auth.adapter.js';
import type { OnIdentity } from './login-state.js';

/** The provider flows' `OnIdentity`: sign in with the identity, set the session cookies, redirect to the front end. */
export const createSignInWithIdentity = (kit: AuthKit): OnIdentity => {
  const { signInWithIdentity } = identitySignInUseCases(kit);
  const cookies = cookiePolicy(kit.settings);
  return async (identity, req, res) => {
    const { tokens, needsUsername } = valueOf(await signInWithIdentity(identity, clientOf(req, kit.settings)));
    setAuthCookies(res, cookies, tokens);
    res.redirect(303, needsUsername ? `${kit.settings.frontendOrigin}/setup-username` : kit.settings.frontendOrigin);
  };
};
