import type { IdentityProvider, UserEvent } from './user.events.js';
import type { Kyc } from './kyc.js';
import type { Permission, Role } from './permissions.js';

/** `email` is the provider's e-mail of the identity (absent in snapshots written before it was kept). */
export type Identity = Readonly<{ provider: IdentityProvider; subject: string; email?: string | null }>;

/** A user as folded from its stream. Before `UserRegistered` nothing exists. */
export type UserState =
  | Readonly<{ status: 'none'; userId: number }>
  | Readonly<{
      status: 'registered';
      userId: number;
      email: string | null;
      username: string | null;
      country: string | null;
      referrerCode: string | null;
      roles: readonly Role[];
      permissions: readonly Permission[];
      banned: Readonly<{ reason: string; adminUserId: number; at: string }> | null;
      mfaEnabled: boolean;
      identities: readonly Identity[];
      profile: Readonly<Record<string, unknown>>;
      /** Null until an admin sets a level (absent in snapshots written before it was kept): LEVEL_0. */
      kyc?: Kyc | null;
      createdAt: string;
      updatedAt: string;
    }>;

export type RegisteredUser = Extract<UserState, { status: 'registered' }>;

export const initialUserState = (userId: number): UserState => ({ status: 'none', userId });

const add = <T>(list: readonly T[], item: T): readonly T[] => (list.includes(item) ? list : [...list, item]);
const remove = <T>(list: readonly T[], item: T): readonly T[] => list.filter((x) => x !== item);

export const evolve = (state: UserState, event: UserEvent): UserState => {
  if (event.type === 'UserRegistered') {
    const d = event.data;
    return {
      status: 'registered',
      userId: d.userId,
      email: d.email,
      username: d.username,
      country: d.country,
      referrerCode: d.referrerCode,
      roles: d.roles,
      permissions: [],
      banned: null,
      mfaEnabled: false,
      identities: [],
      profile: {},
      kyc: null,
      createdAt: d.at,
      updatedAt: d.at,
    };
  }
  if (state.status === 'none') return state; // a broken stream; decide refuses to build on it
  const s = { ...state, updatedAt: event.data.at };
  switch (event.type) {
    case 'UsernameSet':
      return { ...s, username: event.data.username };
    case 'ProfileUpdated':
      return { ...s, profile: { ...s.profile, ...event.data.changes } };
    case 'RoleGranted':
      return { ...s, roles: add(s.roles, event.data.role) };
    case 'RoleRevoked':
      return { ...s, roles: remove(s.roles, event.data.role) };
    case 'PermissionGranted':
      return { ...s, permissions: add(s.permissions, event.data.permission) };
    case 'PermissionRevoked':
      return { ...s, permissions: remove(s.permissions, event.data.permission) };
    case 'UserBanned':
      return { ...s, banned: { reason: event.data.reason, adminUserId: event.data.adminUserId, at: event.data.at } };
    case 'UserUnbanned':
      return { ...s, banned: null };
    case 'MfaEnabled':
      return { ...s, mfaEnabled: true };
    case 'MfaDisabled':
      return { ...s, mfaEnabled: false };
    case 'IdentityLinked':
      return {
        ...s,
        identities: [...s.identities, { provider: event.data.provider, subject: event.data.subject, email: event.data.email }],
      };
    case 'KycLevelSet': {
      const { level, verificationPending, at } = event.data;
      return { ...s, kyc: { level, verificationPending, createdAt: s.kyc?.createdAt ?? at, updatedAt: at } };
    }
    default:
      return assertNever(event);
  }
};

const assertNever = (x: never): never => {
  throw new Error(`unknown user event: ${JSON.stringify(x)}`);
};
