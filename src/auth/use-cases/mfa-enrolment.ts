import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { UserError } from '../../domain/user/user.errors.js';
import type { RegisteredUser } from '../../domain/user/user.state.js';
import { AppError } from '../../shared/app-error.js';
import type { AuthKit } from '../auth-kit.js';

/** Unlike a sign-in's wrong code (401), a signed-in user's wrong code is bad input. */
const invalidCode = () => new AppError('invalid', 'AUTH_INVALID_MFA_CODE', 'The two-factor code is invalid');

type Enrolment = Either<AppError | UserError, RegisteredUser>;

export const mfaEnrolmentUseCases = (kit: AuthKit) => ({
  setup: async (user: RegisteredUser): Promise<Either<UserError, { secret: string; otpauthUrl: string }>> => {
    if (user.mfaEnabled) return left({ _tag: 'MfaAlreadyEnabled', userId: user.userId });
    return right(await kit.mfa.setup(user.userId, user.email ?? user.username ?? `user-${user.userId}`));
  },

  enable: async (user: RegisteredUser, code: string): Promise<Enrolment> => {
    if (user.mfaEnabled) return left({ _tag: 'MfaAlreadyEnabled', userId: user.userId });
    if (!(await kit.mfa.confirmPending(user.userId, code))) return left(invalidCode());
    return kit.users.execute(user.userId, { type: 'EnableMfa', data: {} }, null);
  },

  disable: async (user: RegisteredUser, code: string): Promise<Enrolment> => {
    if (!user.mfaEnabled) return left({ _tag: 'MfaNotEnabled', userId: user.userId });
    if (!(await kit.mfa.check(user.userId, code))) return left(invalidCode());
    const done = await kit.users.execute(user.userId, { type: 'DisableMfa', data: {} }, null);
    if (isLeft(done)) return done;
    await kit.mfa.clear(user.userId);
    return done;
  },
});
