import type { AuthKit } from '../../auth/auth-kit.js';
import { identitySignInUseCases, type IdentitySettings } from '../../auth/use-cases/identity-sign-in.js';
import { AppError } from '../../shared/app-error.js';
import { cookiePolicy, setAuthCookies } from '../auth.adapter.js';
import { clientOf, valueOf } from '../auth.adapter.js';
import type { OnIdentity } from './login-state.js';

/** The front-end page a refused identity sign-in or link lands on, with the refusal's stable code. */
const refusedAt = (origin: string, page: string, error: unknown): string => {
  if (!(error instanceof AppError)) throw error;
  const url = new URL(page, origin);
  url.searchParams.set('error', error.code);
  return url.href;
};

/**
 * The provider flows' `OnIdentity`. A link (started from a signed-in session) adds the identity to that user and
 * returns to the account page. A sign-in sets the session cookies, or, with MFA on, sends the browser to the MFA step
 * with the challenge token in the fragment (never sent to a server or written to a log); refusals carry their code.
 */
export const createSignInWithIdentity = (kit: AuthKit, settings?: IdentitySettings): OnIdentity => {
  const { signInWithIdentity, linkIdentity } = identitySignInUseCases(kit, settings);
  const cookies = cookiePolicy(kit.settings);
  const front = kit.settings.frontendOrigin;
  return async (identity, req, res, linkUserId) => {
    if (linkUserId !== undefined) {
      try {
        valueOf(await linkIdentity(linkUserId, identity));
      } catch (error) {
        return res.redirect(303, refusedAt(front, '/account', error));
      }
      return res.redirect(303, `${front}/account?linked=${identity.provider}`);
    }
    let signedIn;
    try {
      signedIn = valueOf(await signInWithIdentity(identity, clientOf(req, kit.settings)));
    } catch (error) {
      return res.redirect(303, refusedAt(front, '/login', error));
    }
    if ('mfaToken' in signedIn) return res.redirect(303, `${front}/login/mfa#mfaToken=${encodeURIComponent(signedIn.mfaToken)}`);
    setAuthCookies(res, cookies, signedIn.tokens);
    res.redirect(303, signedIn.needsUsername ? `${front}/setup-username` : front);
  };
};
