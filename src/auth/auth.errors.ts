import { AppError, type ErrorClass } from '../shared/app-error.js';

export const AUTH_ERRORS = {
  captchaMissing: ['invalid', 'AUTH_RECAPTCHA_TOKEN_MISSING', 'The x-captcha-token header is required'],
  captchaInvalid: ['invalid', 'AUTH_INVALID_CAPTCHA', 'The captcha token was rejected'],
  invalidCredentials: ['unauthenticated', 'AUTH_INVALID_CREDENTIALS', 'Invalid e-mail or password'],
  mfaRequired: ['unauthenticated', 'AUTH_MFA_REQUIRED', 'Two-factor authentication must be completed'],
  invalidMfaCode: ['unauthenticated', 'AUTH_INVALID_MFA_CODE', 'The two-factor code is invalid'],
  geoBlocked: ['forbidden', 'AUTH_GEO_BLOCKED', 'Not available in your region'],
  userExists: ['conflict', 'AUTH_USER_EXISTS', 'E-mail or username already taken'],
  unauthorized: ['unauthenticated', 'UNAUTHORIZED', 'Authentication required'],
  forbidden: ['forbidden', 'FORBIDDEN', 'Forbidden'],
  banned: ['forbidden', 'USER_BANNED', 'The account is banned'],
  crossSite: ['forbidden', 'FORBIDDEN', 'Cross-site request refused'],
  usernameRequired: ['forbidden', 'USERNAME_REQUIRED', 'Set a username first'],
  identityNotLinked: [
    'conflict',
    'AUTH_IDENTITY_NOT_LINKED',
    'An account with this e-mail exists: sign in with its password and link the provider from the account',
  ],
  identityInUse: ['conflict', 'AUTH_IDENTITY_IN_USE', 'This identity is linked to another account'],
  sessionRequired: ['forbidden', 'AUTH_SESSION_REQUIRED', 'This action needs a signed-in session, not an API key'],
  staffPasswordOnly: ['forbidden', 'AUTH_STAFF_PASSWORD_ONLY', 'Staff accounts sign in with their password and MFA'],
} as const satisfies Record<string, readonly [ErrorClass, string, string]>;

export type AuthErrorKind = keyof typeof AUTH_ERRORS;

export const authError = (kind: AuthErrorKind, message?: string): AppError => {
  const [errorClass, code, fallback] = AUTH_ERRORS[kind];
  return new AppError(errorClass, code, message ?? fallback);
};

export const tooManyAttempts = (retryAfterSeconds: number): AppError =>
  new AppError('rate-limited', 'TOO_MANY_REQUESTS', 'Too many attempts; try again later', undefined, retryAfterSeconds);

/** Messages of the 401s a caller may want to tell apart (the gateway maps them to its AuthError codes). */
export const TOKEN_EXPIRED = 'Access token expired';
export const SESSION_ENDED = 'Session ended';
