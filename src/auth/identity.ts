import type { Request, Response } from 'express';
import { isLeft } from 'fp-ts/lib/Either.js';
import { userErrorToHttp, authError } from '../http/errors.js';
import type { AuthKit } from './auth-kit.js';

export type ExternalIdentity = Readonly<{ provider: 'google' | 'steam'; subject: string; email?: string; emailVerified?: boolean }>;

/** Finds the user of a verified external identity, creating or linking one, in this order. */
export const resolveIdentityUser = async (kit: AuthKit, identity: ExternalIdentity, req: Request): Promise<number> => {
  const linked = await kit.users.idByKey(identity.provider, identity.subject);
  if (linked !== undefined) return linked;
  const email = identity.email && identity.emailVerified === true ? identity.email : null;
  const byEmail = email === null ? undefined : await kit.users.idByKey('email', email);
  if (byEmail !== undefined) {
    // The identity key is claimed first so two concurrent first logins cannot link twice.
    const claimed = await kit.pool.query('INSERT INTO user_keys (kind, key, user_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1',
      [identity.provider, identity.subject.trim().toLowerCase(), byEmail]);
    if (claimed.rowCount === 0) return (await kit.users.idByKey(identity.provider, identity.subject)) ?? byEmail;
    const done = await kit.users.execute(byEmail, { type: 'LinkIdentity', data: { provider: identity.provider, subject: identity.subject, email } }, null);
    if (isLeft(done)) throw userErrorToHttp(done.left);
    return byEmail;
  }
  const created = await kit.users.register({
    email, username: null, passwordHash: null, country: req.get(kit.settings.trustedCountryHeader)?.toUpperCase() ?? null, referrerCode: null,
    marketingOptIn: false, provider: identity.provider,
    registration: { ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null, country: req.get(kit.settings.trustedCountryHeader) ?? null, referrer: req.get('referer') ?? null },
    identity: { provider: identity.provider, subject: identity.subject, email },
  });
  if (isLeft(created)) {
    // Lost a race with a concurrent first login of the same identity: use the winner.
    const winner = await kit.users.idByKey(identity.provider, identity.subject);
    if (winner !== undefined) return winner;
    throw userErrorToHttp(created.left);
  }
  return created.right.userId;
};

/**
 * For the identity-provider flows (src/http/identity-providers, `OnIdentity`): find, link or create the
 * user, refuse banned users and blocked regions, start a session with cookies, redirect to the front end.
 */
export const createSignInWithIdentity = (kit: AuthKit) =>
  async (identity: ExternalIdentity, req: Request, res: Response): Promise<void> => {
    kit.geoCheck(req);
    const userId = await resolveIdentityUser(kit, identity, req);
    const access = await kit.users.access(userId);
    if (!access) throw authError('unauthorized');
    if (access.isBanned) throw authError('banned');
    await kit.startSession(userId, req, res);
    res.redirect(303, access.username === null ? `${kit.settings.frontendOrigin}/setup-username` : kit.settings.frontendOrigin);
  };
