import { passwordProblem } from '../auth/passwords.js';
import { z } from './validate.js';

const email = z.string().trim().max(254).pipe(z.email('must be an e-mail address'));
export const Username = z
  .string()
  .regex(/^[A-Za-z0-9]{3,16}$/, 'must be 3 to 16 letters and digits')
  .openapi('Username');
const password = z.string().superRefine((value, ctx) => {
  const problem = passwordProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: `password ${problem}` });
});
/** ISO 3166-1 alpha-2, upper case. */
const country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code')
  .transform((c) => c.toUpperCase());

export const SignUpBody = z
  .object({
    email,
    password,
    username: Username,
    country,
    referrerCode: z.string().trim().min(1).max(64).optional(),
    marketingOptIn: z.boolean().optional(),
  })
  .openapi('SignUpBody');

/** Any non-empty password may be tried: policy applies to new passwords, not to sign-in. */
export const SignInBody = z
  .object({ email: z.string().trim().min(1).max(254), password: z.string().min(1).max(1024) })
  .openapi('SignInBody');
export const Verify2faBody = z
  .object({ code: z.string().regex(/^\d{6}$/, 'must be 6 digits'), mfaToken: z.string().min(1).max(4096) })
  .openapi('Verify2faBody');
export const PasswordChangeBody = z
  .object({
    currentPassword: z.string().min(1).max(1024).optional().openapi({ description: 'Required when the account has a password' }),
    newPassword: password,
  })
  .openapi('PasswordChangeBody');
export const MfaCodeBody = z.object({ code: z.string().regex(/^\d{6}$/, 'must be 6 digits') }).openapi('MfaCodeBody');
export const SetupUsernameBody = z.object({ username: Username }).openapi('SetupUsernameBody');
