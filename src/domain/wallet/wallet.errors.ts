import type { CurrencyId } from '../money/currency.js';
import type { BetStatus, DepositStatus, HeldDepositSettlement, WithdrawalStatus } from './wallet.events.js';

/** Expected rejections of wallet commands: values, not exceptions. Mapped to an AppError once, in src/commands/errors.ts. */
export type WalletError =
  | Readonly<{ _tag: 'InvalidAmount'; field: string; message: string }>
  | Readonly<{ _tag: 'InsufficientFunds'; currencyId: CurrencyId; balance: string; required: string }>
  | Readonly<{ _tag: 'DepositNotFound'; depositId: string }>
  | Readonly<{ _tag: 'DepositInvalidState'; depositId: string; status: DepositStatus; action: string }>
  /** Release and return apply only to a COMPLETE deposit that completed held. */
  | Readonly<{ _tag: 'DepositNotHeld'; depositId: string; status: DepositStatus; action: string }>
  /** The held deposit was already settled the other way (a repeat of the same decision is a no-op). */
  | Readonly<{ _tag: 'DepositAlreadySettled'; depositId: string; settlement: HeldDepositSettlement; action: string }>
  | Readonly<{ _tag: 'BetNotFound'; betId: string }>
  | Readonly<{ _tag: 'BetInvalidState'; betId: string; status: BetStatus; action: string }>
  | Readonly<{ _tag: 'WithdrawalNotFound'; withdrawalId: string }>
  | Readonly<{ _tag: 'WithdrawalInvalidState'; withdrawalId: string; status: WithdrawalStatus; action: string }>
  /** The same idempotency key (bet id, provider + external id, Idempotency-Key) was used for a different command. */
  | Readonly<{ _tag: 'IdempotencyConflict'; key: string; message: string }>;

export type WalletErrorTag = WalletError['_tag'];
export const WALLET_ERROR_TAGS = [
  'InvalidAmount',
  'InsufficientFunds',
  'DepositNotFound',
  'DepositInvalidState',
  'DepositNotHeld',
  'DepositAlreadySettled',
  'BetNotFound',
  'BetInvalidState',
  'WithdrawalNotFound',
  'WithdrawalInvalidState',
  'IdempotencyConflict',
] as const satisfies readonly WalletErrorTag[];
