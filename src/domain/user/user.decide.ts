import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type { UserError } from './user.errors.js';
import type { IdentityProvider, NewUser, UserEvent } from './user.events.js';
import type { KycLevel } from './kyc.js';
import type { Permission, Role } from './permissions.js';
import type { RegisteredUser, UserState } from './user.state.js';

export type UserCommand =
  | Readonly<{ type: 'RegisterUser'; data: NewUser }>
  | Readonly<{ type: 'SetUsername'; data: Readonly<{ username: string }> }>
  | Readonly<{ type: 'UpdateProfile'; data: Readonly<{ changes: Readonly<Record<string, unknown>> }> }>
  | Readonly<{ type: 'GrantRole'; data: Readonly<{ role: Role }> }>
  | Readonly<{ type: 'RevokeRole'; data: Readonly<{ role: Role }> }>
  | Readonly<{ type: 'GrantPermission'; data: Readonly<{ permission: Permission }> }>
  | Readonly<{ type: 'RevokePermission'; data: Readonly<{ permission: Permission }> }>
  | Readonly<{ type: 'BanUser'; data: Readonly<{ reason: string }> }>
  | Readonly<{ type: 'UnbanUser'; data: Readonly<{ [k: string]: never }> }>
  | Readonly<{ type: 'EnableMfa'; data: Readonly<{ [k: string]: never }> }>
  | Readonly<{ type: 'DisableMfa'; data: Readonly<{ [k: string]: never }> }>
  | Readonly<{ type: 'LinkIdentity'; data: Readonly<{ provider: IdentityProvider; subject: string; email: string | null }> }>
  /** `verificationPending` left out keeps the current flag (false when there is no record). */
  | Readonly<{ type: 'SetKycLevel'; data: Readonly<{ level: KycLevel; verificationPending?: boolean }> }>;

/** Who acts and when: `decide` never reads the clock. `adminUserId` is null when users act on themselves. */
export type UserCommandMeta = Readonly<{ userId: number; now: Date; adminUserId: number | null }>;

type Decision = Either<UserError, readonly UserEvent[]>;

const none: Decision = right([]);

/** Pure: the events a command causes on a user, or why it is refused. Repeating a grant or revoke is a no-op. */
export const decide = (command: UserCommand, state: UserState, meta: UserCommandMeta): Decision => {
  const at = meta.now.toISOString();
  const adminUserId = meta.adminUserId;
  if (command.type === 'RegisterUser') {
    if (state.status !== 'none') return left({ _tag: 'UserAlreadyRegistered', userId: state.userId });
    return right([{ type: 'UserRegistered', data: { userId: meta.userId, ...command.data, at, adminUserId } }]);
  }
  if (state.status === 'none') return left({ _tag: 'UserNotFound', userId: meta.userId });
  return decideFor(command, state, at, adminUserId);
};

const decideFor = (
  command: Exclude<UserCommand, { type: 'RegisterUser' }>,
  s: RegisteredUser,
  at: string,
  adminUserId: number | null,
): Decision => {
  switch (command.type) {
    case 'SetUsername':
      if (s.username !== null && adminUserId === null) return left({ _tag: 'UsernameAlreadySet', userId: s.userId });
      return s.username === command.data.username
        ? none
        : right([{ type: 'UsernameSet', data: { username: command.data.username, at, adminUserId } }]);
    case 'UpdateProfile': {
      const changes = Object.fromEntries(Object.entries(command.data.changes).filter(([k, v]) => s.profile[k] !== v));
      return Object.keys(changes).length === 0 ? none : right([{ type: 'ProfileUpdated', data: { changes, at, adminUserId } }]);
    }
    case 'GrantRole':
      return s.roles.includes(command.data.role)
        ? none
        : right([{ type: 'RoleGranted', data: { role: command.data.role, at, adminUserId } }]);
    case 'RevokeRole':
      if (adminUserId === s.userId) return left({ _tag: 'SelfTarget', userId: s.userId, action: 'revoke own role' });
      return s.roles.includes(command.data.role)
        ? right([{ type: 'RoleRevoked', data: { role: command.data.role, at, adminUserId } }])
        : none;
    case 'GrantPermission':
      return s.permissions.includes(command.data.permission)
        ? none
        : right([{ type: 'PermissionGranted', data: { permission: command.data.permission, at, adminUserId } }]);
    case 'RevokePermission':
      return s.permissions.includes(command.data.permission)
        ? right([{ type: 'PermissionRevoked', data: { permission: command.data.permission, at, adminUserId } }])
        : none;
    case 'BanUser':
      if (adminUserId === null) throw new Error('a ban needs the acting admin');
      if (adminUserId === s.userId) return left({ _tag: 'SelfTarget', userId: s.userId, action: 'ban' });
      if (s.banned) return left({ _tag: 'AlreadyBanned', userId: s.userId });
      return right([{ type: 'UserBanned', data: { reason: command.data.reason, adminUserId, at } }]);
    case 'UnbanUser':
      if (adminUserId === null) throw new Error('an unban needs the acting admin');
      if (!s.banned) return left({ _tag: 'NotBanned', userId: s.userId });
      return right([{ type: 'UserUnbanned', data: { adminUserId, at } }]);
    case 'EnableMfa':
      return s.mfaEnabled ? left({ _tag: 'MfaAlreadyEnabled', userId: s.userId }) : right([{ type: 'MfaEnabled', data: { at } }]);
    case 'DisableMfa':
      return s.mfaEnabled ? right([{ type: 'MfaDisabled', data: { at, adminUserId } }]) : left({ _tag: 'MfaNotEnabled', userId: s.userId });
    case 'LinkIdentity': {
      const { provider, subject, email } = command.data;
      if (s.identities.some((i) => i.provider === provider && i.subject === subject)) return none;
      return right([{ type: 'IdentityLinked', data: { provider, subject, email, at } }]);
    }
    case 'SetKycLevel': {
      if (adminUserId === null) throw new Error('a KYC level needs the acting admin');
      // Segregation of duties: the level decides whether the admin's own withdrawals are held for AML review.
      if (adminUserId === s.userId) return left({ _tag: 'SelfTarget', userId: s.userId, action: 'set own KYC level' });
      const { level } = command.data;
      const verificationPending = command.data.verificationPending ?? s.kyc?.verificationPending ?? false;
      if (s.kyc && s.kyc.level === level && s.kyc.verificationPending === verificationPending) return none;
      return right([{ type: 'KycLevelSet', data: { level, verificationPending, adminUserId, at } }]);
    }
    default:
      return assertNever(command);
  }
};

const assertNever = (x: never): never => {
  throw new Error(`unknown user command: ${JSON.stringify(x)}`);
};
