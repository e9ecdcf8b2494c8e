import { isLeft } from 'fp-ts/lib/Either.js';
import type { Users } from '../commands/users.js';
import { hashPassword } from './passwords.js';

/** decisions.md, Bootstrap: when no user has SUPERADMIN_EMAIL, create one with role SuperAdmin. */
export const bootstrapSuperAdmin = async (
  users: Users,
  admin: Readonly<{ email: string; username: string; password: string }>,
): Promise<'created' | 'exists'> => {
  if ((await users.idByKey('email', admin.email)) !== undefined) return 'exists';
  const result = await users.register({
    email: admin.email,
    username: admin.username,
    passwordHash: await hashPassword(admin.password),
    country: null,
    referrerCode: null,
    marketingOptIn: false,
    provider: 'password',
    roles: ['User', 'SuperAdmin'],
    registration: { ip: null, userAgent: 'bootstrap', country: null, referrer: null },
  });
  if (isLeft(result)) {
    if (result.left._tag === 'UserExists' && result.left.field === 'email') return 'exists';
    throw new Error(`SuperAdmin bootstrap failed: ${result.left._tag}`);
  }
  return 'created';
};
