import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import type { LimitsError } from '../domain/limits/limits.errors.js';
import type { UserError } from '../domain/user/user.errors.js';
import { leaderboardMessage, type LeaderboardError } from '../leaderboards/leaderboard.errors.js';
import { AppError, type ErrorClass, type ErrorDetail } from '../shared/app-error.js';
import type { LedgerError } from './ledger.types.js';

// The domain's refusals as transport-neutral AppErrors, once: each transport maps the class to its own status.

/** Every ledger rejection, its class and stable code. Adding a tag to LedgerError fails the build here until it is mapped. */
export const LEDGER_ERRORS = {
  InvalidAmount: ['invalid', 'VALIDATION_FAILED'],
  InsufficientFunds: ['conflict', 'INSUFFICIENT_FUNDS'],
  DepositNotFound: ['not-found', 'DEPOSIT_NOT_FOUND'],
  DepositInvalidState: ['conflict', 'DEPOSIT_INVALID_STATE'],
  DepositNotHeld: ['conflict', 'DEPOSIT_NOT_HELD'],
  DepositAlreadySettled: ['conflict', 'DEPOSIT_ALREADY_SETTLED'],
  BetNotFound: ['not-found', 'BET_NOT_FOUND'],
  BetInvalidState: ['conflict', 'BET_INVALID_STATE'],
  WithdrawalNotFound: ['not-found', 'WITHDRAWAL_NOT_FOUND'],
  WithdrawalInvalidState: ['conflict', 'WITHDRAWAL_INVALID_STATE'],
  IdempotencyConflict: ['unprocessable', 'IDEMPOTENCY_KEY_REUSED'],
  UserNotFound: ['not-found', 'USER_NOT_FOUND'],
  UsernameRequired: ['forbidden', 'USERNAME_REQUIRED'],
  UserSelfExcluded: ['forbidden', 'USER_SELF_EXCLUDED'],
  BetLimitExceeded: ['forbidden', 'BET_LIMIT_EXCEEDED'],
  UserBanned: ['forbidden', 'USER_BANNED'],
  LossLimitExceeded: ['forbidden', 'LOSS_LIMIT_EXCEEDED'],
  DepositLimitExceeded: ['forbidden', 'DEPOSIT_LIMIT_EXCEEDED'],
  WithdrawalUnderReview: ['conflict', 'WITHDRAWAL_UNDER_REVIEW'],
  InvalidBusinessTime: ['invalid', 'VALIDATION_FAILED'],
} as const satisfies Record<LedgerError['_tag'], readonly [ErrorClass, string]>;

const ledgerMessage = (e: LedgerError): string => {
  switch (e._tag) {
    case 'InvalidAmount':
    case 'InvalidBusinessTime':
      return 'Validation failed';
    case 'InsufficientFunds':
      return `Insufficient ${e.currencyId} balance: ${e.balance} available, ${e.required} required`;
    case 'DepositNotFound':
      return `Deposit ${e.depositId} not found`;
    case 'DepositInvalidState':
      return `Cannot ${e.action} deposit ${e.depositId} in status ${e.status}`;
    case 'DepositNotHeld':
      return `Cannot ${e.action} deposit ${e.depositId}: it did not complete held (status ${e.status})`;
    case 'DepositAlreadySettled':
      return `Cannot ${e.action} deposit ${e.depositId}: it was already ${e.settlement.toLowerCase()}`;
    case 'BetNotFound':
      return `Bet ${e.betId} not found`;
    case 'BetInvalidState':
      return `Cannot ${e.action} bet ${e.betId} in status ${e.status}`;
    case 'WithdrawalNotFound':
      return `Withdrawal ${e.withdrawalId} not found`;
    case 'WithdrawalInvalidState':
      return `Cannot ${e.action} withdrawal ${e.withdrawalId} in status ${e.status}`;
    case 'IdempotencyConflict':
      return e.message;
    case 'UserNotFound':
      return `User ${e.userId} not found`;
    case 'UsernameRequired':
      return 'Set a username before betting or withdrawing';
    case 'UserSelfExcluded':
      return `User ${e.userId} is self-excluded until ${e.expiresAt}`;
    case 'BetLimitExceeded':
      return `The bet is above the user's bet limit of ${e.betLimit} USD`;
    case 'UserBanned':
      return `User ${e.userId} is banned`;
    case 'LossLimitExceeded':
      return `The bet would take the user's net loss over ${e.window} past their loss limit of ${e.limit} USD`;
    case 'WithdrawalUnderReview':
      return `Withdrawal ${e.withdrawalId} is held for an AML review: clear its flag before approving it`;
    case 'DepositLimitExceeded':
      return `The deposit would take the user's deposits over ${e.window} past their deposit limit of ${e.limit} USD`;
    default:
      return assertNever(e);
  }
};

const assertNever = (x: never): never => {
  throw new Error(`unmapped ledger error: ${JSON.stringify(x)}`);
};

export const validationFailed = (details: readonly ErrorDetail[]): AppError =>
  new AppError('invalid', 'VALIDATION_FAILED', 'Validation failed', details);

/** Ledger fields are body field names ("amount"); details name the location like zod errors do ("body.amount"). */
const qualify = (field: string): string => (/^(body|query|params|headers)\./.test(field) ? field : `body.${field}`);

export const ledgerError = (e: LedgerError): AppError => {
  const [errorClass, code] = LEDGER_ERRORS[e._tag];
  const details =
    e._tag === 'InvalidAmount' || e._tag === 'InvalidBusinessTime' ? [{ field: qualify(e.field), message: e.message }] : undefined;
  return new AppError(errorClass, code, ledgerMessage(e), details);
};

/** The value of a ledger result, or the rejection thrown as its AppError. */
export const orThrow = <T>(result: Either<LedgerError, T>): T => {
  if (isLeft(result)) throw ledgerError(result.left);
  return result.right;
};

export const USER_ERRORS = {
  UserNotFound: ['not-found', 'USER_NOT_FOUND', 'User not found'],
  UserAlreadyRegistered: ['conflict', 'AUTH_USER_EXISTS', 'User already exists'],
  UserExists: ['conflict', 'AUTH_USER_EXISTS', 'E-mail or username already taken'],
  UsernameAlreadySet: ['conflict', 'USERNAME_ALREADY_SET', 'The username is already set'],
  MfaAlreadyEnabled: ['conflict', 'MFA_ALREADY_ENABLED', 'Two-factor authentication is already enabled'],
  MfaNotEnabled: ['conflict', 'MFA_NOT_ENABLED', 'Two-factor authentication is not enabled'],
  AlreadyBanned: ['conflict', 'USER_ALREADY_BANNED', 'The user is already banned'],
  NotBanned: ['conflict', 'USER_NOT_BANNED', 'The user is not banned'],
  SelfTarget: ['forbidden', 'FORBIDDEN', 'Administrators cannot do this to themselves'],
} as const satisfies Record<UserError['_tag'], readonly [ErrorClass, string, string]>;

export const userError = (e: UserError): AppError => {
  const [errorClass, code, message] = USER_ERRORS[e._tag];
  return new AppError(errorClass, code, message);
};

export const orThrowUser = <T>(result: Either<UserError, T>): T => {
  if (isLeft(result)) throw userError(result.left);
  return result.right;
};

export const LIMITS_ERRORS = {
  ExclusionNotInFuture: ['invalid', 'VALIDATION_FAILED'],
  NoActiveExclusion: ['not-found', 'SELF_EXCLUSION_NOT_FOUND'],
  ExclusionWouldShorten: ['conflict', 'SELF_EXCLUSION_ACTIVE'],
} as const satisfies Record<LimitsError['_tag'], readonly [ErrorClass, string]>;

export const limitsError = (e: LimitsError): AppError => {
  if (e._tag === 'ExclusionNotInFuture') return validationFailed([{ field: 'body.excludeUntil', message: 'must be in the future' }]);
  const [errorClass, code] = LIMITS_ERRORS[e._tag];
  return new AppError(
    errorClass,
    code,
    e._tag === 'NoActiveExclusion'
      ? `User ${e.userId} has no active self-exclusion`
      : `User ${e.userId} is self-excluded until ${e.expiresAt}; lift the exclusion to shorten it`,
  );
};

export const LEADERBOARD_ERRORS = {
  LeaderboardNotFound: ['not-found', 'LEADERBOARD_NOT_FOUND'],
  ScheduleNotFound: ['not-found', 'LEADERBOARD_SCHEDULE_NOT_FOUND'],
  LeaderboardUserNotFound: ['not-found', 'LEADERBOARD_USER_NOT_FOUND'],
  LeaderboardNotSettled: ['conflict', 'LEADERBOARD_NOT_SETTLED'],
  LeaderboardUserNotWinner: ['conflict', 'LEADERBOARD_USER_NOT_WINNER'],
  PrizeAlreadyReceived: ['conflict', 'PRIZE_ALREADY_RECEIVED'],
  PrizeExceedsRemaining: ['conflict', 'PRIZE_EXCEEDS_REMAINING'],
  PrizeInvalid: ['invalid', 'VALIDATION_FAILED'],
  PrizeIdempotencyConflict: ['unprocessable', 'IDEMPOTENCY_KEY_REUSED'],
} as const satisfies Record<LeaderboardError['_tag'], readonly [ErrorClass, string]>;

export const leaderboardError = (e: LeaderboardError): AppError => {
  if (e._tag === 'PrizeInvalid') return validationFailed([{ field: `body.${e.field}`, message: e.message }]);
  const [errorClass, code] = LEADERBOARD_ERRORS[e._tag];
  return new AppError(errorClass, code, leaderboardMessage(e));
};
