import type { KycLevel } from './kyc.js';
import type { Permission, Role } from './permissions.js';

/** The stream of one user: identity, profile, roles, permissions, bans, MFA status and KYC level. Secrets never go here. */
export const userStream = (userId: number): string => `user-${userId}`;
export const userStreamUserId = (streamId: string): number | undefined => {
  const m = /^user-(\d+)$/.exec(streamId);
  return m ? Number(m[1]) : undefined;
};

export const IDENTITY_PROVIDERS = ['password', 'google', 'steam'] as const;
export type IdentityProvider = (typeof IDENTITY_PROVIDERS)[number];

export type RegistrationInfo = Readonly<{ ip: string | null; userAgent: string | null; country: string | null; referrer: string | null }>;

type At = Readonly<{ at: string }>;
/** Set on every change an administrator made (audit trail). */
type ByAdmin = Readonly<{ adminUserId: number | null }>;

/** What a sign-up states: the RegisterUser command carries it and UserRegistered records it. */
export type NewUser = Readonly<{
  email: string | null;
  username: string | null;
  country: string | null;
  referrerCode: string | null;
  marketingOptIn: boolean;
  registration: RegistrationInfo;
  provider: IdentityProvider;
  roles: readonly Role[];
}>;

export type UserRegistered = Readonly<{ type: 'UserRegistered'; data: Readonly<{ userId: number }> & NewUser & At & ByAdmin }>;
export type UsernameSet = Readonly<{ type: 'UsernameSet'; data: Readonly<{ username: string }> & At & ByAdmin }>;
export type ProfileUpdated = Readonly<{
  type: 'ProfileUpdated';
  data: Readonly<{ changes: Readonly<Record<string, unknown>> }> & At & ByAdmin;
}>;
export type RoleGranted = Readonly<{ type: 'RoleGranted'; data: Readonly<{ role: Role }> & At & ByAdmin }>;
export type RoleRevoked = Readonly<{ type: 'RoleRevoked'; data: Readonly<{ role: Role }> & At & ByAdmin }>;
export type PermissionGranted = Readonly<{ type: 'PermissionGranted'; data: Readonly<{ permission: Permission }> & At & ByAdmin }>;
export type PermissionRevoked = Readonly<{ type: 'PermissionRevoked'; data: Readonly<{ permission: Permission }> & At & ByAdmin }>;
export type UserBanned = Readonly<{ type: 'UserBanned'; data: Readonly<{ reason: string; adminUserId: number }> & At }>;
export type UserUnbanned = Readonly<{ type: 'UserUnbanned'; data: Readonly<{ adminUserId: number }> & At }>;
export type MfaEnabled = Readonly<{ type: 'MfaEnabled'; data: At }>;
export type MfaDisabled = Readonly<{ type: 'MfaDisabled'; data: At & ByAdmin }>;
export type IdentityLinked = Readonly<{
  type: 'IdentityLinked';
  data: Readonly<{ provider: IdentityProvider; subject: string; email: string | null }> & At;
}>;

/** An admin set the player's KYC level (the provider's verdict); no personal detail of the verification is kept. */
export type KycLevelSet = Readonly<{
  type: 'KycLevelSet';
  data: Readonly<{ level: KycLevel; verificationPending: boolean; adminUserId: number }> & At;
}>;

export type UserEvent =
  | UserRegistered
  | UsernameSet
  | ProfileUpdated
  | RoleGranted
  | RoleRevoked
  | PermissionGranted
  | PermissionRevoked
  | UserBanned
  | UserUnbanned
  | MfaEnabled
  | MfaDisabled
  | IdentityLinked
  | KycLevelSet;

export const USER_EVENT_TYPES = [
  'UserRegistered',
  'UsernameSet',
  'ProfileUpdated',
  'RoleGranted',
  'RoleRevoked',
  'PermissionGranted',
  'PermissionRevoked',
  'UserBanned',
  'UserUnbanned',
  'MfaEnabled',
  'MfaDisabled',
  'IdentityLinked',
  'KycLevelSet',
] as const satisfies readonly UserEvent['type'][];

export const isUserEventType = (type: string): type is UserEvent['type'] => (USER_EVENT_TYPES as readonly string[]).includes(type);
