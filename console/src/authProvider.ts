import type { AuthProvider } from 'react-admin';
import { api, ApiError, refreshSession } from './api';

export type Session = { id: number; username: string | null; email: string | null; roles: string[]; permissions: string[] };
export type ConsoleConfig = { captcha: { mode: 'bypass'; token: string } | { mode: 'token' } };

/** Thrown by login when the password was right and a TOTP code is needed: the login page shows the code step. */
export class MfaRequired extends Error {
  constructor(readonly mfaToken: string) {
    super('Enter the code of your authenticator app');
  }
}

let session: Session | undefined;
let loading: Promise<Session> | undefined;

/** One request however many ask at once (react-admin checks the session and the permissions side by side at start). */
const loadSession = (): Promise<Session> => {
  if (!loading) {
    const load: Promise<Session> = api<Session>('GET', '/admin/session')
      .then(({ json }) => {
        if (loading === load) session = json; // not when a log-out came in between
        return json;
      })
      .finally(() => {
        if (loading === load) loading = undefined;
      });
    loading = load;
  }
  return loading;
};
const forgetSession = (): void => {
  session = undefined;
  loading = undefined;
};

export const consoleConfig = async (): Promise<ConsoleConfig> => (await api<ConsoleConfig>('GET', '/admin/console-config')).json;

export type LoginParams = { email: string; password: string; captchaToken?: string } | { mfaToken: string; code: string };

/** Signs in on the console's own origin (host-wide cookies: they count on the public API too); roles come from /admin/session. */
export const authProvider: AuthProvider = {
  login: async (params: LoginParams) => {
    if ('mfaToken' in params) {
      await api('POST', '/admin/auth/verify-2fa', { mfaToken: params.mfaToken, code: params.code });
    } else {
      const { email, password } = params;
      let token = params.captchaToken;
      if (!token) {
        const config = await consoleConfig();
        token = config.captcha.mode === 'bypass' ? config.captcha.token : '';
      }
      const answer = await api<{ mfaRequired?: boolean; mfaToken?: string }>(
        'POST',
        '/admin/auth/sign-in',
        { email, password },
        { 'x-captcha-token': token },
      );
      if (answer.json.mfaRequired && answer.json.mfaToken) throw new MfaRequired(answer.json.mfaToken);
    }
    // A signed-in user without a back-office role gets the API's 403 here; their new session is ended at once.
    await loadSession().catch(async (error: unknown) => {
      await api('DELETE', '/admin/session/log-out/current').catch(() => undefined);
      throw error;
    });
  },
  logout: async () => {
    forgetSession();
    await api('DELETE', '/admin/session/log-out/current').catch(() => undefined);
  },
  checkAuth: async () => {
    if (session) return;
    await loadSession();
  },
  checkError: async (error: unknown) => {
    const status = error instanceof ApiError ? error.status : (error as { status?: number })?.status;
    // 401: the session ended (log-out elsewhere, ban, revocation) after a refresh was tried: back to the login page.
    if (status === 401) {
      forgetSession();
      if (await refreshSession()) return;
      throw new Error('Your session has ended');
    }
    // 403 stays on the page: the screen shows the API's message.
  },
  getPermissions: async () => session ?? (await loadSession()),
  getIdentity: async () => {
    const me = session ?? (await loadSession());
    return { id: me.id, fullName: me.username ?? me.email ?? `#${me.id}` };
  },
};

/** Whether the signed-in admin may do what `permission` guards (a SuperAdmin holds every permission). */
export const can = (me: Session | undefined, permission: string | 'superadmin'): boolean => {
  if (!me) return false;
  if (me.roles.includes('SuperAdmin')) return true;
  return permission !== 'superadmin' && me.permissions.includes(permission);
};
