import type { Either } from 'fp-ts/lib/Either.js';
import type { CommandMetadata, WalletCommand } from './wallet.commands.js';
import { claimAffiliateCommission, creditPrize, deductBalance, setBalance, tipUser } from './wallet.decide.admin.js';
import { errorBet, placeBet, rollbackBet, settleBet } from './wallet.decide.bets.js';
import { completeDeposit, confirmDeposit, failDeposit, releaseDeposit, requestDeposit, returnDeposit } from './wallet.decide.deposits.js';
import { makeContext } from './wallet.decide.shared.js';
import {
  approveWithdrawal,
  completeWithdrawal,
  failWithdrawal,
  rejectWithdrawal,
  requestWithdrawal,
  retryWithdrawal,
} from './wallet.decide.withdrawals.js';
import type { WalletError } from './wallet.errors.js';
import type { WalletEvent } from './wallet.events.js';
import type { WalletState } from './wallet.state.js';

/** A command's events or its refusal; transaction ids derive from natural keys, so a retry answers no events, not a second transaction. */
export const decide = (command: WalletCommand, state: WalletState, meta: CommandMetadata): Either<WalletError, readonly WalletEvent[]> => {
  const ctx = makeContext(state, meta.userId, meta.now, command.data.effectiveAt);
  switch (command.type) {
    case 'RequestDeposit':
      return requestDeposit(ctx, command);
    case 'ConfirmDeposit':
      return confirmDeposit(ctx, command);
    case 'CompleteDeposit':
      return completeDeposit(ctx, command);
    case 'FailDeposit':
      return failDeposit(ctx, command);
    case 'ReleaseDeposit':
      return releaseDeposit(ctx, command);
    case 'ReturnDeposit':
      return returnDeposit(ctx, command);
    case 'PlaceBet':
      return placeBet(ctx, command);
    case 'SettleBet':
      return settleBet(ctx, command);
    case 'RollbackBet':
      return rollbackBet(ctx, command);
    case 'ErrorBet':
      return errorBet(ctx, command);
    case 'RequestWithdrawal':
      return requestWithdrawal(ctx, command);
    case 'ApproveWithdrawal':
      return approveWithdrawal(ctx, command);
    case 'RejectWithdrawal':
      return rejectWithdrawal(ctx, command);
    case 'RetryWithdrawal':
      return retryWithdrawal(ctx, command);
    case 'CompleteWithdrawal':
      return completeWithdrawal(ctx, command);
    case 'FailWithdrawal':
      return failWithdrawal(ctx, command);
    case 'TipUser':
      return tipUser(ctx, command);
    case 'DeductBalance':
      return deductBalance(ctx, command);
    case 'SetBalance':
      return setBalance(ctx, command);
    case 'CreditPrize':
      return creditPrize(ctx, command);
    case 'ClaimAffiliateCommission':
      return claimAffiliateCommission(ctx, command);
    default: {
      const unreachable: never = command;
      throw new Error(`invariant: unknown wallet command ${(unreachable as { type: string }).type}`);
    }
  }
};
