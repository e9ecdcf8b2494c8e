import { KYC_LEVELS } from '../domain/user/kyc.js';
import { PERMISSIONS, ROLES } from '../domain/user/permissions.js';
import { z } from './validate.js';

export { BanBody } from '../commands/admin-operations/ban-user.schemas.js';

export const UserIdParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
export const RegistrationInfoParams = z.object({ userId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
export const PermissionParams = UserIdParams.extend({ name: z.enum(PERMISSIONS) });
export const RolesBody = z.object({ roles: z.enum(ROLES) }).openapi('UserRolesBody');
export const PermissionsBody = z.object({ permissions: z.enum(PERMISSIONS) }).openapi('UserPermissionsBody');
export const SingleRoleBody = z.object({ username: z.string().min(1).max(64), role: z.enum(ROLES) }).openapi('SingleRoleBody');

/** PUT /user/{id}/kyc: the level the KYC provider verified; `verificationPending` left out keeps the current flag. */
export const KycBody = z
  .strictObject({ level: z.enum(KYC_LEVELS), verificationPending: z.boolean().optional() })
  .openapi('SetKycLevelBody');

export const TRADE_LINK = /^https:\/\/steamcommunity\.com\/tradeoffer\/new\/\?partner=\d+&token=[A-Za-z0-9_-]{8}$/;
/** PATCH /user/{id}: every field optional; unknown fields are refused so a typo never passes as "nothing to change". */
export const UpdateUserBody = z
  .strictObject({
    username: z
      .string()
      .regex(/^[A-Za-z0-9]{3,16}$/, 'must be 3 to 16 letters and digits')
      .optional(),
    isStaff: z.boolean().optional(),
    isVideoCreator: z.boolean().optional(),
    customMinAffiliateLevel: z.number().int().min(0).max(1000).optional(),
    isTest: z.boolean().optional(),
    isStreamer: z.boolean().optional(),
    canUseChat: z.boolean().optional(),
    isPrivate: z.boolean().optional(),
    isStreamerMode: z.boolean().optional(),
    isEmailNotificationsEnabled: z.boolean().optional(),
    gamePlatformTradeLink: z.string().max(200).regex(TRADE_LINK, 'must be a Steam trade-offer link').optional(),
  })
  .openapi('UpdateUserBody');
