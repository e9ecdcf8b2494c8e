import { describe, expect, it } from 'vitest';
import type { KycLevel } from '../../src/domain/user/kyc.js';
import { decide, type UserCommand } from '../../src/domain/user/user.decide.js';
import { evolve, initialUserState } from '../../src/domain/user/user.state.js';
import { deciderSpec } from '../support/decider.js';

const NOW = new Date('2026-01-02T03:04:05.000Z');
const AT = NOW.toISOString();
const USER = 42;
const ADMIN = 7;

const register: UserCommand = {
  type: 'RegisterUser',
  data: {
    email: 'a@b.test',
    username: 'Alice',
    country: 'DE',
    referrerCode: null,
    marketingOptIn: false,
    provider: 'password',
    roles: ['User'],
    registration: { ip: '1.2.3.4', userAgent: 'ua', country: 'DE', referrer: null },
  },
};

const {
  given,
  applied: byUser,
  appliedWith,
} = deciderSpec({
  decide,
  evolve,
  initialState: initialUserState(USER),
  meta: { userId: USER, now: NOW, adminUserId: null },
});
const byAdmin = appliedWith({ adminUserId: ADMIN });
const asAdmin = { adminUserId: ADMIN };

describe('user decider', () => {
  it('when a new user registers, then UserRegistered carries the profile, the registration info and the roles', () => {
    given()
      .when(register)
      .then({ type: 'UserRegistered', data: { userId: USER, ...register.data, at: AT, adminUserId: null } });
  });

  it('when a registered user registers again, then it fails UserAlreadyRegistered', () => {
    given(byUser(register)).when(register).thenFails('UserAlreadyRegistered');
  });

  it('when any other command targets a user that does not exist, then it fails UserNotFound', () => {
    given()
      .when({ type: 'GrantRole', data: { role: 'Admin' } }, asAdmin)
      .thenFails('UserNotFound');
  });

  it('when an admin grants a permission, then PermissionGranted records the admin; granting it again is a no-op', () => {
    const g = given(byUser(register));
    g.when({ type: 'GrantPermission', data: { permission: 'user.view' } }, asAdmin).then({
      type: 'PermissionGranted',
      data: { permission: 'user.view', at: AT, adminUserId: ADMIN },
    });
    given(byUser(register), byAdmin({ type: 'GrantPermission', data: { permission: 'user.view' } }))
      .when({ type: 'GrantPermission', data: { permission: 'user.view' } }, asAdmin)
      .thenNothing();
  });

  it('when a permission the user does not hold is revoked, then nothing happens; when held, PermissionRevoked', () => {
    given(byUser(register))
      .when({ type: 'RevokePermission', data: { permission: 'user.ban' } }, asAdmin)
      .thenNothing();
    const s = given(byUser(register), byAdmin({ type: 'GrantPermission', data: { permission: 'user.ban' } }))
      .when({ type: 'RevokePermission', data: { permission: 'user.ban' } }, asAdmin)
      .thenAccepted().state;
    expect(s.status === 'registered' && s.permissions).toEqual([]);
  });

  it('when an admin bans a user, then UserBanned names the reason and the admin; unbanning lifts the ban', () => {
    given(byUser(register))
      .when({ type: 'BanUser', data: { reason: 'fraud' } }, asAdmin)
      .then({ type: 'UserBanned', data: { reason: 'fraud', adminUserId: ADMIN, at: AT } });
    const s = given(byUser(register), byAdmin({ type: 'BanUser', data: { reason: 'x' } }))
      .when({ type: 'UnbanUser', data: {} }, asAdmin)
      .thenAccepted().state;
    expect(s.status === 'registered' && s.banned).toBeNull();
  });

  it('when a banned user is banned again or a free user unbanned, then it fails AlreadyBanned or NotBanned', () => {
    given(byUser(register), byAdmin({ type: 'BanUser', data: { reason: 'x' } }))
      .when({ type: 'BanUser', data: { reason: 'y' } }, asAdmin)
      .thenFails('AlreadyBanned');
    given(byUser(register)).when({ type: 'UnbanUser', data: {} }, asAdmin).thenFails('NotBanned');
  });

  it('when an admin bans themselves or revokes their own role, then it fails SelfTarget', () => {
    const self = given(byUser(register));
    self.when({ type: 'BanUser', data: { reason: 'oops' } }, { adminUserId: USER }).thenFails('SelfTarget');
    given(byUser(register), byAdmin({ type: 'GrantRole', data: { role: 'Admin' } }))
      .when({ type: 'RevokeRole', data: { role: 'Admin' } }, { adminUserId: USER })
      .thenFails('SelfTarget');
  });

  it('when a user without username sets one, then UsernameSet; setting it again is UsernameAlreadySet, but an admin may rename', () => {
    const idp = { ...register, data: { ...register.data, username: null, provider: 'steam' as const } };
    given(byUser(idp))
      .when({ type: 'SetUsername', data: { username: 'Bob' } })
      .then({ type: 'UsernameSet', data: { username: 'Bob', at: AT, adminUserId: null } });
    given(byUser(idp), byUser({ type: 'SetUsername', data: { username: 'Bob' } }))
      .when({ type: 'SetUsername', data: { username: 'Rob' } })
      .thenFails('UsernameAlreadySet');
    given(byUser(register))
      .when({ type: 'SetUsername', data: { username: 'Rob' } }, asAdmin)
      .then({ type: 'UsernameSet', data: { username: 'Rob', at: AT, adminUserId: ADMIN } });
  });

  it('when MFA is enabled twice or disabled while off, then it fails; otherwise MfaEnabled / MfaDisabled', () => {
    given(byUser(register))
      .when({ type: 'EnableMfa', data: {} })
      .then({ type: 'MfaEnabled', data: { at: AT } });
    given(byUser(register), byUser({ type: 'EnableMfa', data: {} }))
      .when({ type: 'EnableMfa', data: {} })
      .thenFails('MfaAlreadyEnabled');
    given(byUser(register)).when({ type: 'DisableMfa', data: {} }).thenFails('MfaNotEnabled');
    given(byUser(register), byUser({ type: 'EnableMfa', data: {} }))
      .when({ type: 'DisableMfa', data: {} }, asAdmin)
      .then({ type: 'MfaDisabled', data: { at: AT, adminUserId: ADMIN } });
  });

  it('when the same identity is linked twice, then the second time is a no-op', () => {
    const link: UserCommand = { type: 'LinkIdentity', data: { provider: 'google', subject: 'sub-1', email: 'a@b.test' } };
    given(byUser(register))
      .when(link)
      .then({ type: 'IdentityLinked', data: { provider: 'google', subject: 'sub-1', email: 'a@b.test', at: AT } });
    given(byUser(register), byUser(link)).when(link).thenNothing();
  });

  it('when an admin updates profile fields, then ProfileUpdated with only the changed fields; unchanged fields are a no-op', () => {
    const edit = (changes: Record<string, unknown>): UserCommand => ({ type: 'UpdateProfile', data: { changes } });
    given(byUser(register))
      .when(edit({ isStaff: true, avatar: '/a.png' }), asAdmin)
      .then({ type: 'ProfileUpdated', data: { changes: { isStaff: true, avatar: '/a.png' }, at: AT, adminUserId: ADMIN } });
    given(byUser(register), byAdmin(edit({ isStaff: true })))
      .when(edit({ isStaff: true, isTest: true }), asAdmin)
      .then({ type: 'ProfileUpdated', data: { changes: { isTest: true }, at: AT, adminUserId: ADMIN } });
    given(byUser(register), byAdmin(edit({ isStaff: true })))
      .when(edit({ isStaff: true }), asAdmin)
      .thenNothing();
    expect(
      given(byUser(register))
        .when(edit({ canUseChat: false }), asAdmin)
        .thenAccepted().state,
    ).toMatchObject({ profile: { canUseChat: false } });
  });

  it('when an identity is linked, then the state keeps its provider e-mail', () => {
    const link: UserCommand = { type: 'LinkIdentity', data: { provider: 'google', subject: 'sub-2', email: 'g@b.test' } };
    expect(given(byUser(register)).when(link).thenAccepted().state).toMatchObject({
      identities: [{ provider: 'google', subject: 'sub-2', email: 'g@b.test' }],
    });
  });

  describe('KYC level', () => {
    const setKyc = (level: KycLevel, verificationPending?: boolean): UserCommand => ({
      type: 'SetKycLevel',
      data: verificationPending === undefined ? { level } : { level, verificationPending },
    });

    it("when an admin sets a player's level, then KycLevelSet names it and the admin; the state keeps it from then on", () => {
      const state = given(byUser(register))
        .when(setKyc('LEVEL_1'), asAdmin)
        .then({ type: 'KycLevelSet', data: { level: 'LEVEL_1', verificationPending: false, adminUserId: ADMIN, at: AT } });
      expect(state).toMatchObject({ kyc: { level: 'LEVEL_1', verificationPending: false, createdAt: AT, updatedAt: AT } });
    });

    it('when the same level and flag are set again, then nothing happens; a new flag alone is a change', () => {
      given(byUser(register), byAdmin(setKyc('LEVEL_1', true)))
        .when(setKyc('LEVEL_1'), asAdmin)
        .thenNothing();
      given(byUser(register), byAdmin(setKyc('LEVEL_1', true)))
        .when(setKyc('LEVEL_1', false), asAdmin)
        .then({ type: 'KycLevelSet', data: { level: 'LEVEL_1', verificationPending: false, adminUserId: ADMIN, at: AT } });
    });

    it('when the flag is left out, then the current one is kept; a level may be lowered', () => {
      given(byUser(register), byAdmin(setKyc('LEVEL_3', true)))
        .when(setKyc('LEVEL_0'), asAdmin)
        .then({ type: 'KycLevelSet', data: { level: 'LEVEL_0', verificationPending: true, adminUserId: ADMIN, at: AT } });
    });

    it('when a registered player has no level set, then the state has no KYC record (LEVEL_0)', () => {
      expect(given(byUser(register)).when(setKyc('LEVEL_0'), asAdmin).state).toMatchObject({ kyc: null });
    });

    it('when an admin sets their own level, then it fails SelfTarget; an unknown user fails UserNotFound', () => {
      given(byUser(register)).when(setKyc('LEVEL_4'), { adminUserId: USER }).thenFails('SelfTarget');
      given().when(setKyc('LEVEL_1'), asAdmin).thenFails('UserNotFound');
    });

    it('when no admin acts, then the command is a broken invariant and throws', () => {
      expect(() => given(byUser(register)).when(setKyc('LEVEL_1'))).toThrow(/acting admin/);
    });
  });
});
