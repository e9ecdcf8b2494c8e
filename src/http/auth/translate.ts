import type { Request } from 'express';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import type { AuthSettings, Client } from '../../auth/auth-kit.js';
import type { UserError } from '../../domain/user/user.errors.js';
import { AppError } from '../../shared/app-error.js';
import { userErrorToHttp } from '../errors.js';

/** The request as the auth use cases see it. */
export const clientOf = (req: Request, settings: Pick<AuthSettings, 'trustedCountryHeader'>): Client => ({
  ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null, country: req.get(settings.trustedCountryHeader) ?? null,
  referrer: req.get('referer') ?? null, log: req.log,
});

/** The value of a use case's answer, or its refusal thrown for the error handler. */
export const valueOf = <T>(result: Either<AppError | UserError, T>): T => {
  if (!isLeft(result)) return result.right;
  throw result.left instanceof AppError ? result.left : userErrorToHttp(result.left);
};

/** Throws a refusal answered without a value. */
export const refuseIf = (refusal: AppError | undefined): void => {
  if (refusal) throw refusal;
};
