import { isLeft } from 'fp-ts/lib/Either.js';
import type { WalletCommand } from '../../domain/wallet/wallet.commands.js';
import { depositExternalKey } from '../../domain/wallet/wallet.state.js';
import type { Ledger, LedgerResult } from '../../commands/ledger.types.js';
import { depositView } from '../../commands/views.js';
import type { WalletKit } from '../../commands/wallet-kit.js';
import { newId } from '../../shared/ids.js';
import { statedTime } from '../../commands/business-time.js';

type DepositUseCases = Pick<Ledger, 'requestDeposit' | 'confirmDeposit' | 'completeDeposit' | 'failDeposit'>;

/** A payment provider's deposit: requested once per provider and external id, then confirmed, completed or failed. */
export const depositUseCases = (kit: WalletKit): DepositUseCases => {
  const transition = async (depositId: string, command: WalletCommand): LedgerResult<ReturnType<typeof depositView>> => {
    const userId = await kit.owner('deposit', depositId, { _tag: 'DepositNotFound', depositId });
    if (isLeft(userId)) return userId;
    return kit.run(userId.right, command, (s) => depositView(userId.right, s.deposits.get(depositId)!));
  };

  return {
    requestDeposit: async (input) => {
      const money = await kit.money(input.currencyId, input.amount, input.usdAmount);
      if (isLeft(money)) return money;
      const externalKey = depositExternalKey(input.providerId, input.externalId);
      const depositId = newId();
      return kit.run(
        input.userId,
        {
          type: 'RequestDeposit',
          data: {
            depositId,
            externalId: input.externalId,
            providerId: input.providerId,
            networkId: input.networkId,
            currencyId: input.currencyId,
            ...money.right,
            txHash: input.txHash ?? null,
            payAddress: input.payAddress ?? null,
            payMemo: input.payMemo ?? null,
            ...statedTime(input),
          },
        },
        (s) => {
          const id = s.depositsByExternalKey.get(externalKey)!;
          return { deposit: depositView(input.userId, s.deposits.get(id)!), created: id === depositId };
        },
        undefined,
        [
          ['deposit-ext', externalKey],
          ['deposit', depositId],
        ],
      );
    },
    confirmDeposit: (depositId, input) =>
      transition(depositId, { type: 'ConfirmDeposit', data: { depositId, txHash: input.txHash ?? null, ...statedTime(input) } }),
    completeDeposit: (depositId, input) =>
      transition(depositId, { type: 'CompleteDeposit', data: { depositId, txHash: input.txHash ?? null, ...statedTime(input) } }),
    failDeposit: (depositId, input) =>
      transition(depositId, { type: 'FailDeposit', data: { depositId, reason: input.reason, ...statedTime(input) } }),
  };
};
