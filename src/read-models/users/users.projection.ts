import { USER_EVENT_TYPES } from '../../domain/user/user.events.js';
import { insertRows, type Projection, type Row, type Sql } from '../../projections/projection.js';
import { userRecords } from '../user-records.js';

const HANDLES: readonly string[] = USER_EVENT_TYPES;

const addTo = (column: string) => `${column} = CASE WHEN $2 = ANY(${column}) THEN ${column} ELSE array_append(${column}, $2) END`;
const update = (set: string, userId: number, value: unknown, at: string): Sql => ({
  text: `UPDATE users SET ${set}, updated_at = $3 WHERE id = $1`,
  values: [userId, value, at],
});

/** `users` (the back office's user list) and `registration_info` (GET /registration-info/{userId}). */
export const usersProjection: Projection = {
  name: 'users',
  version: 2,
  handles: HANDLES,
  tables: ['users', 'registration_info'],
  project(events) {
    const users: Row[] = [];
    const registrations: Row[] = [];
    const updates: Sql[] = [];
    for (const { userId, event } of userRecords(events, HANDLES)) {
      const at = event.data.at;
      switch (event.type) {
        case 'UserRegistered': {
          const d = event.data;
          users.push({
            id: userId,
            email: d.email,
            username: d.username,
            roles: d.roles,
            permissions: [],
            is_banned: false,
            ban_reason: null,
            banned_by: null,
            country: d.country,
            mfa_enabled: false,
            provider: d.provider,
            identity_providers: [],
            referrer_code: d.referrerCode,
            marketing_opt_in: d.marketingOptIn,
            profile: {},
            created_at: at,
            updated_at: at,
          });
          registrations.push({
            user_id: userId,
            ip: d.registration.ip,
            user_agent: d.registration.userAgent,
            country: d.registration.country,
            referrer: d.registration.referrer,
            referrer_code: d.referrerCode,
            provider: d.provider,
            created_at: at,
          });
          break;
        }
        case 'UsernameSet':
          updates.push(update('username = $2', userId, event.data.username, at));
          break;
        case 'ProfileUpdated':
          updates.push(update('profile = profile || $2::jsonb', userId, JSON.stringify(event.data.changes), at));
          break;
        case 'RoleGranted':
          updates.push(update(addTo('roles'), userId, event.data.role, at));
          break;
        case 'RoleRevoked':
          updates.push(update('roles = array_remove(roles, $2)', userId, event.data.role, at));
          break;
        case 'PermissionGranted':
          updates.push(update(addTo('permissions'), userId, event.data.permission, at));
          break;
        case 'PermissionRevoked':
          updates.push(update('permissions = array_remove(permissions, $2)', userId, event.data.permission, at));
          break;
        case 'UserBanned':
          updates.push({
            text: 'UPDATE users SET is_banned = true, ban_reason = $2, banned_by = $3, updated_at = $4 WHERE id = $1',
            values: [userId, event.data.reason, event.data.adminUserId, at],
          });
          break;
        case 'UserUnbanned':
          updates.push(
            update('is_banned = false, ban_reason = NULL, banned_by = NULL, unbanned_by = $2', userId, event.data.adminUserId, at),
          );
          break;
        case 'MfaEnabled':
          updates.push(update('mfa_enabled = $2', userId, true, at));
          break;
        case 'MfaDisabled':
          updates.push(update('mfa_enabled = $2', userId, false, at));
          break;
        case 'IdentityLinked': {
          updates.push(update(addTo('identity_providers'), userId, event.data.provider, at));
          // Steam's subject is the platform id; a Google identity's e-mail is the identity-provider e-mail.
          const column = event.data.provider === 'steam' ? 'game_platform_id' : 'identity_provider_email';
          const value = event.data.provider === 'steam' ? event.data.subject : event.data.email;
          if (value !== null) updates.push(update(`${column} = $2`, userId, value, at));
          break;
        }
        case 'KycLevelSet':
          updates.push({
            text: `UPDATE users SET kyc_level = $2, kyc_verification_pending = $3, kyc_created_at = coalesce(kyc_created_at, $4),
              kyc_updated_at = $4, updated_at = $4 WHERE id = $1`,
            values: [userId, event.data.level, event.data.verificationPending, at],
          });
          break;
      }
    }
    // Registrations first: every later event of a user follows its registration in the stream.
    return [
      ...insertRows(
        'users',
        users.map((u) => ({
          ...u,
          unbanned_by: null,
          game_platform_id: null,
          identity_provider_email: null,
          kyc_level: null,
          kyc_verification_pending: null,
          kyc_created_at: null,
          kyc_updated_at: null,
        })),
      ),
      ...insertRows('registration_info', registrations),
      ...updates,
    ];
  },
};
