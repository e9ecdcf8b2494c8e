import { isLeft, left } from 'fp-ts/lib/Either.js';
import type { WalletCommand } from '../../domain/wallet/wallet.commands.js';
import type { WalletState } from '../../domain/wallet/wallet.state.js';
import type { Ledger, LedgerResult } from '../../commands/ledger.types.js';
import { withdrawalView } from '../../commands/views.js';
import type { WalletKit } from '../../commands/wallet-kit.js';
import { newId } from '../../shared/ids.js';
import { statedTime } from '../../commands/business-time.js';

type WithdrawalUseCases = Pick<
  Ledger,
  'requestWithdrawal' | 'approveWithdrawal' | 'rejectWithdrawal' | 'retryWithdrawal' | 'completeWithdrawal' | 'failWithdrawal'
>;

/** A player's withdrawal: requested (funds held), decided by an admin, then completed or failed by the provider. */
export const withdrawalUseCases = (kit: WalletKit): WithdrawalUseCases => {
  const transition = async (
    withdrawalId: string,
    command: WalletCommand,
    adminUserId?: number,
  ): LedgerResult<ReturnType<typeof withdrawalView>> => {
    const userId = await kit.owner('withdrawal', withdrawalId, { _tag: 'WithdrawalNotFound', withdrawalId });
    if (isLeft(userId)) return userId;
    return kit.run(
      userId.right,
      command,
      (s) => withdrawalView(userId.right, s.withdrawals.get(withdrawalId)!),
      adminUserId === undefined ? undefined : { adminUserId },
    );
  };

  return {
    requestWithdrawal: async (input) => {
      const money = await kit.money(input.currencyId, input.amount, input.usdAmount);
      if (isLeft(money)) return money;
      const withdrawalId = newId();
      const operationKey = input.operationKey ?? withdrawalId;
      const refused = await kit.mayTransact(input.userId);
      if (refused) return left(refused);
      const aml = kit.deps.aml;
      const heldForReview = aml !== undefined && money.right.usdAmount > aml.settings.thresholdUsd && (await aml.belowKyc(input.userId));
      let after: WalletState | undefined;
      const requested = await kit.run(
        input.userId,
        {
          type: 'RequestWithdrawal',
          data: {
            withdrawalId,
            operationKey,
            currencyId: input.currencyId,
            networkId: input.networkId,
            providerId: input.providerId,
            ...money.right,
            recipientAddress: input.recipientAddress,
            recipientMemo: input.recipientMemo ?? null,
            ...(heldForReview ? { heldForReview } : {}),
          },
        },
        (s) => {
          after = s;
          const id = s.operations.get(operationKey)?.ref ?? withdrawalId;
          return { withdrawal: withdrawalView(input.userId, s.withdrawals.get(id)!), created: id === withdrawalId };
        },
        undefined,
        [['withdrawal', withdrawalId]],
      );
      if (isLeft(requested) || !requested.right.created || !after) return requested;
      // Held for review: a flag names the withdrawal, and its approval waits for the flag to be cleared.
      if (heldForReview) await aml.raise(input.userId, 'withdrawal-review', `review-${withdrawalId}`, money.right.usdAmount, withdrawalId);
      await kit.linkedCheck(input.userId, after, requested.right.withdrawal.createdAt, withdrawalId);
      return requested;
    },
    approveWithdrawal: async (id, adminUserId) => {
      if (await kit.deps.aml?.underReview(id)) return left({ _tag: 'WithdrawalUnderReview', withdrawalId: id });
      return transition(id, { type: 'ApproveWithdrawal', data: { withdrawalId: id, adminUserId } }, adminUserId);
    },
    rejectWithdrawal: (id, adminUserId, rejectReason) =>
      transition(id, { type: 'RejectWithdrawal', data: { withdrawalId: id, adminUserId, rejectReason } }, adminUserId),
    retryWithdrawal: (id, adminUserId) => transition(id, { type: 'RetryWithdrawal', data: { withdrawalId: id, adminUserId } }, adminUserId),
    completeWithdrawal: (id, input) =>
      transition(id, { type: 'CompleteWithdrawal', data: { withdrawalId: id, txHash: input.txHash, ...statedTime(input) } }),
    failWithdrawal: (id, input) =>
      transition(id, { type: 'FailWithdrawal', data: { withdrawalId: id, failedReason: input.failedReason, ...statedTime(input) } }),
  };
};
