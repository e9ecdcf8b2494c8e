import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { decide, type UserCommand, type UserCommandMeta } from '../domain/user/user.decide.js';
import type { UserError } from '../domain/user/user.errors.js';
import { userStream, type IdentityProvider, type RegistrationInfo, type UserEvent } from '../domain/user/user.events.js';
import { evolve, initialUserState, type RegisteredUser, type UserState } from '../domain/user/user.state.js';
import type { Role } from '../domain/user/permissions.js';
import type { EventStore } from '../infra/event-store/event-store.port.js';
import { createStreamHandler } from './stream.handler.js';
import { createPersonKeys } from '../erasure/person-keys.js';
import { withPersonalData } from '../erasure/personal-store.js';
import { createCredentials } from './user-credentials.js';

export type UserKeyKind = 'email' | 'username' | 'google' | 'steam';

export type LinkedIdentity = Readonly<{ provider: 'google' | 'steam'; subject: string; email: string | null }>;

export type RegisterInput = Readonly<{
  email: string | null;
  username: string | null;
  passwordHash: string | null;
  country: string | null;
  referrerCode: string | null;
  marketingOptIn: boolean;
  registration: RegistrationInfo;
  provider: IdentityProvider;
  roles?: readonly Role[];
  identity?: LinkedIdentity;
  adminUserId?: number | null;
}>;

/** What the authenticator needs, live (the command side's fold of the user stream). */
export type UserAccess = Readonly<{
  userId: number;
  roles: readonly string[];
  permissions: readonly string[];
  isBanned: boolean;
  username: string | null;
  state: RegisteredUser;
}>;

export type Users = Readonly<{
  register(input: RegisterInput): Promise<Either<UserError, RegisteredUser>>;
  execute(
    userId: number,
    command: Exclude<UserCommand, { type: 'RegisterUser' }>,
    adminUserId: number | null,
  ): Promise<Either<UserError, RegisteredUser>>;
  load(userId: number): Promise<UserState>;
  access(userId: number): Promise<UserAccess | undefined>;
  idByKey(kind: UserKeyKind, key: string): Promise<number | undefined>;
  linkIdentity(userId: number, identity: LinkedIdentity): Promise<Either<UserError, number>>;
  exists(userId: number): Promise<boolean>;
  /** Users without a username (identity-provider sign-ups) may not bet or withdraw. */
  canTransact(userId: number): Promise<boolean>;
}>;

/** E-mails and usernames are unique regardless of case. */
export const normaliseKey = (value: string): string => value.trim().toLowerCase();

export const createUsers = (deps: Readonly<{ store: EventStore; pool: pg.Pool; clock?: () => Date }>): Users => {
  const clock = deps.clock ?? (() => new Date());
  const credentials = createCredentials(deps.pool);
  // Personal fields go into the stream encrypted under the person's key (docs/compliance-erasure.md).
  const store = withPersonalData(deps.store, createPersonKeys(deps.pool));
  const handler = createStreamHandler<UserState, UserEvent, UserCommand, UserCommandMeta, UserError>(store, {
    streamOf: userStream,
    initial: initialUserState,
    evolve,
    decide,
  });

  /** Returns the owner of the key: `userId` when the claim is ours. */
  const claim = async (kind: UserKeyKind, key: string, userId: number): Promise<number> => {
    const ins = await deps.pool.query<{ user_id: string }>(
      'INSERT INTO user_keys (kind, key, user_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING user_id',
      [kind, normaliseKey(key), userId],
    );
    if (ins.rows[0]) return userId;
    return (await idByKey(kind, key)) ?? userId;
  };
  const release = (userId: number, kind: UserKeyKind, key: string) =>
    deps.pool.query('DELETE FROM user_keys WHERE kind = $1 AND key = $2 AND user_id = $3', [kind, normaliseKey(key), userId]);
  const idByKey = async (kind: UserKeyKind, key: string): Promise<number | undefined> => {
    const { rows } = await deps.pool.query<{ user_id: string }>('SELECT user_id FROM user_keys WHERE kind = $1 AND key = $2', [
      kind,
      normaliseKey(key),
    ]);
    return rows[0] ? Number(rows[0].user_id) : undefined;
  };

  const snapshot = async (state: UserState, revision: bigint): Promise<void> => {
    if (state.status !== 'registered') return;
    await deps.pool.query(
      `INSERT INTO user_access (user_id, revision, state, roles, permissions, is_banned, username) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (user_id) DO UPDATE SET revision = EXCLUDED.revision, state = EXCLUDED.state, roles = EXCLUDED.roles,
         permissions = EXCLUDED.permissions, is_banned = EXCLUDED.is_banned, username = EXCLUDED.username
       WHERE user_access.revision < EXCLUDED.revision`,
      [state.userId, revision.toString(), JSON.stringify(state), state.roles, state.permissions, state.banned !== null, state.username],
    );
  };

  const run = async (userId: number, command: UserCommand, adminUserId: number | null): Promise<Either<UserError, RegisteredUser>> => {
    const handled = await handler.handle(
      userId,
      command,
      { userId, now: clock(), adminUserId },
      adminUserId === null ? {} : { adminUserId },
    );
    if (isLeft(handled.decision)) return handled.decision;
    if (handled.decision.right.length > 0) await snapshot(handled.state, handled.revision);
    if (handled.state.status !== 'registered') return left({ _tag: 'UserNotFound', userId });
    return right(handled.state);
  };

  const register: Users['register'] = async (input) => {
    const userId = Number((await deps.pool.query<{ id: string }>(`SELECT nextval('user_id_seq') AS id`)).rows[0]!.id);
    const claims: [UserKeyKind, string][] = [];
    const own = async (kind: UserKeyKind, key: string | null): Promise<boolean> => {
      if (key === null) return true;
      if ((await claim(kind, key, userId)) !== userId) return false;
      claims.push([kind, key]);
      return true;
    };
    const undo = () => Promise.all(claims.map(([k, v]) => release(userId, k, v)));
    if (!(await own('email', input.email))) return left({ _tag: 'UserExists', field: 'email' });
    if (!(await own('username', input.username))) {
      await undo();
      return left({ _tag: 'UserExists', field: 'username' });
    }
    if (input.identity && !(await own(input.identity.provider, input.identity.subject))) {
      await undo();
      return left({ _tag: 'UserExists', field: 'email' });
    }
    try {
      if (input.passwordHash !== null) await credentials.savePassword(userId, input.passwordHash);
      const registered = await run(
        userId,
        {
          type: 'RegisterUser',
          data: {
            email: input.email === null ? null : input.email.trim(),
            username: input.username,
            country: input.country,
            referrerCode: input.referrerCode,
            marketingOptIn: input.marketingOptIn,
            registration: input.registration,
            provider: input.provider,
            roles: input.roles ?? ['User'],
          },
        },
        input.adminUserId ?? null,
      );
      if (isLeft(registered) || !input.identity) return registered;
      return await run(userId, { type: 'LinkIdentity', data: input.identity }, null);
    } catch (error) {
      await undo();
      throw error;
    }
  };

  const execute: Users['execute'] = async (userId, command, adminUserId) => {
    if (command.type !== 'SetUsername') return run(userId, command, adminUserId);
    const before = await handler.load(userId);
    if (before.state.status !== 'registered') return left({ _tag: 'UserNotFound', userId });
    if ((await claim('username', command.data.username, userId)) !== userId) return left({ _tag: 'UserExists', field: 'username' });
    const result = await run(userId, command, adminUserId);
    const old = before.state.username;
    if (isLeft(result)) {
      if (old === null || normaliseKey(old) !== normaliseKey(command.data.username))
        await release(userId, 'username', command.data.username);
    } else if (old !== null && normaliseKey(old) !== normaliseKey(command.data.username)) {
      await release(userId, 'username', old);
    }
    return result;
  };

  const linkIdentity: Users['linkIdentity'] = async (userId, identity) => {
    const owner = await claim(identity.provider, identity.subject, userId);
    if (owner !== userId) return right(owner);
    const done = await run(userId, { type: 'LinkIdentity', data: identity }, null);
    return isLeft(done) ? done : right(userId);
  };

  const access: Users['access'] = async (userId) => {
    const { rows } = await deps.pool.query<{
      state: RegisteredUser;
      roles: string[];
      permissions: string[];
      is_banned: boolean;
      username: string | null;
    }>('SELECT state, roles, permissions, is_banned, username FROM user_access WHERE user_id = $1', [userId]);
    const r = rows[0];
    return r && { userId, roles: r.roles, permissions: r.permissions, isBanned: r.is_banned, username: r.username, state: r.state };
  };

  // Users are never deleted and a username is never unset: positive answers can be cached forever.
  const known = new Set<number>();
  const named = new Set<number>();
  const remember = (set: Set<number>, userId: number, yes: boolean): boolean => {
    if (yes && set.size < 500_000) set.add(userId);
    return yes;
  };

  return {
    register,
    execute,
    load: async (userId) => (await handler.load(userId)).state,
    access,
    idByKey,
    linkIdentity,
    exists: async (userId) =>
      known.has(userId) || (Number.isSafeInteger(userId) && userId > 0 && remember(known, userId, (await access(userId)) !== undefined)),
    canTransact: async (userId) => named.has(userId) || remember(named, userId, ((await access(userId))?.username ?? null) !== null),
  };
};
