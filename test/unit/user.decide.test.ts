import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { decide, type UserCommand } from '../../src/domain/user/user.decide.js';
import type { UserEvent } from '../../src/domain/user/user.events.js';
import { evolve, initialUserState, type UserState } from '../../src/domain/user/user.state.js';

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

/** given(commands...).when(command) with the acting admin (null = the user). */
const given = (...history: readonly [UserCommand, number | null][]) => {
  let state: UserState = initialUserState(USER);
  for (const [command, adminUserId] of history) {
    const d = decide(command, state, { userId: USER, now: NOW, adminUserId });
    if (isLeft(d)) throw new Error(`setup failed: ${d.left._tag}`);
    state = d.right.reduce(evolve, state);
  }
  return {
    state,
    when: (command: UserCommand, adminUserId: number | null = null) => {
      const decision = decide(command, state, { userId: USER, now: NOW, adminUserId });
      return {
        then: (...events: UserEvent[]) => expect(decision).toEqual({ _tag: 'Right', right: events }),
        thenNothing: () => expect(decision).toEqual({ _tag: 'Right', right: [] }),
        thenFails: (tag: string) => expect(isLeft(decision) && decision.left._tag).toBe(tag),
        state: () => (isRight(decision) ? decision.right.reduce(evolve, state) : state),
      };
    },
  };
};

describe('user decider', () => {
  it('when a new user registers, then UserRegistered carries the profile, the registration info and the roles', () => {
    given()
      .when(register)
      .then({ type: 'UserRegistered', data: { userId: USER, ...register.data, at: AT, adminUserId: null } });
  });

  it('when a registered user registers again, then it fails UserAlreadyRegistered', () => {
    given([register, null]).when(register).thenFails('UserAlreadyRegistered');
  });

  it('when any other command targets a user that does not exist, then it fails UserNotFound', () => {
    given()
      .when({ type: 'GrantRole', data: { role: 'Admin' } }, ADMIN)
      .thenFails('UserNotFound');
  });

  it('when an admin grants a permission, then PermissionGranted records the admin; granting it again is a no-op', () => {
    const g = given([register, null]);
    g.when({ type: 'GrantPermission', data: { permission: 'user.view' } }, ADMIN).then({
      type: 'PermissionGranted',
      data: { permission: 'user.view', at: AT, adminUserId: ADMIN },
    });
    given([register, null], [{ type: 'GrantPermission', data: { permission: 'user.view' } }, ADMIN])
      .when({ type: 'GrantPermission', data: { permission: 'user.view' } }, ADMIN)
      .thenNothing();
  });

  it('when a permission the user does not hold is revoked, then nothing happens; when held, PermissionRevoked', () => {
    given([register, null])
      .when({ type: 'RevokePermission', data: { permission: 'user.ban' } }, ADMIN)
      .thenNothing();
    const s = given([register, null], [{ type: 'GrantPermission', data: { permission: 'user.ban' } }, ADMIN])
      .when({ type: 'RevokePermission', data: { permission: 'user.ban' } }, ADMIN)
      .state();
    expect(s.status === 'registered' && s.permissions).toEqual([]);
  });

  it('when an admin bans a user, then UserBanned with reason and admin; banning again fails AlreadyBanned; unbanning a free user fails NotBanned', () => {
    given([register, null])
      .when({ type: 'BanUser', data: { reason: 'fraud' } }, ADMIN)
      .then({ type: 'UserBanned', data: { reason: 'fraud', adminUserId: ADMIN, at: AT } });
    given([register, null], [{ type: 'BanUser', data: { reason: 'x' } }, ADMIN])
      .when({ type: 'BanUser', data: { reason: 'y' } }, ADMIN)
      .thenFails('AlreadyBanned');
    given([register, null]).when({ type: 'UnbanUser', data: {} }, ADMIN).thenFails('NotBanned');
    const s = given([register, null], [{ type: 'BanUser', data: { reason: 'x' } }, ADMIN])
      .when({ type: 'UnbanUser', data: {} }, ADMIN)
      .state();
    expect(s.status === 'registered' && s.banned).toBeNull();
  });

  it('when an admin bans themselves or revokes their own role, then it fails SelfTarget', () => {
    const self = given([register, null]);
    self.when({ type: 'BanUser', data: { reason: 'oops' } }, USER).thenFails('SelfTarget');
    given([register, null], [{ type: 'GrantRole', data: { role: 'Admin' } }, ADMIN])
      .when({ type: 'RevokeRole', data: { role: 'Admin' } }, USER)
      .thenFails('SelfTarget');
  });

  it('when a user without username sets one, then UsernameSet; setting it again themselves fails UsernameAlreadySet, an admin may rename', () => {
    const idp = { ...register, data: { ...register.data, username: null, provider: 'steam' as const } };
    given([idp, null])
      .when({ type: 'SetUsername', data: { username: 'Bob' } })
      .then({ type: 'UsernameSet', data: { username: 'Bob', at: AT, adminUserId: null } });
    given([idp, null], [{ type: 'SetUsername', data: { username: 'Bob' } }, null])
      .when({ type: 'SetUsername', data: { username: 'Rob' } })
      .thenFails('UsernameAlreadySet');
    given([register, null])
      .when({ type: 'SetUsername', data: { username: 'Rob' } }, ADMIN)
      .then({ type: 'UsernameSet', data: { username: 'Rob', at: AT, adminUserId: ADMIN } });
  });

  it('when MFA is enabled twice or disabled while off, then it fails; otherwise MfaEnabled / MfaDisabled', () => {
    given([register, null])
      .when({ type: 'EnableMfa', data: {} })
      .then({ type: 'MfaEnabled', data: { at: AT } });
    given([register, null], [{ type: 'EnableMfa', data: {} }, null])
      .when({ type: 'EnableMfa', data: {} })
      .thenFails('MfaAlreadyEnabled');
    given([register, null]).when({ type: 'DisableMfa', data: {} }).thenFails('MfaNotEnabled');
  });

  it('when the same identity is linked twice, then the second time is a no-op', () => {
    const link: UserCommand = { type: 'LinkIdentity', data: { provider: 'google', subject: 'sub-1', email: 'a@b.test' } };
    given([register, null])
      .when(link)
      .then({ type: 'IdentityLinked', data: { provider: 'google', subject: 'sub-1', email: 'a@b.test', at: AT } });
    given([register, null], [link, null]).when(link).thenNothing();
  });

  it('when an admin updates profile fields, then ProfileUpdated with only the changed fields and the admin; unchanged fields are a no-op', () => {
    const edit = (changes: Record<string, unknown>): UserCommand => ({ type: 'UpdateProfile', data: { changes } });
    given([register, null])
      .when(edit({ isStaff: true, avatar: '/a.png' }), ADMIN)
      .then({ type: 'ProfileUpdated', data: { changes: { isStaff: true, avatar: '/a.png' }, at: AT, adminUserId: ADMIN } });
    given([register, null], [edit({ isStaff: true }), ADMIN])
      .when(edit({ isStaff: true, isTest: true }), ADMIN)
      .then({ type: 'ProfileUpdated', data: { changes: { isTest: true }, at: AT, adminUserId: ADMIN } });
    given([register, null], [edit({ isStaff: true }), ADMIN])
      .when(edit({ isStaff: true }), ADMIN)
      .thenNothing();
    expect(
      given([register, null])
        .when(edit({ canUseChat: false }), ADMIN)
        .state(),
    ).toMatchObject({ profile: { canUseChat: false } });
  });

  it('when an identity is linked, then the state keeps its provider e-mail', () => {
    const link: UserCommand = { type: 'LinkIdentity', data: { provider: 'google', subject: 'sub-2', email: 'g@b.test' } };
    expect(given([register, null]).when(link).state()).toMatchObject({
      identities: [{ provider: 'google', subject: 'sub-2', email: 'g@b.test' }],
    });
  });
});
