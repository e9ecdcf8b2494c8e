import { isLeft } from 'fp-ts/lib/Either.js';
import type { Ledger } from '../../commands/ledger.types.js';
import { amountOf, type WalletKit } from '../../commands/wallet-kit.js';
import { newId } from '../../shared/ids.js';

/** A SuperAdmin sets one currency's balance of a wallet to an exact amount (zero allowed); the difference is posted. */
export const balanceSetUseCases = (kit: WalletKit): Pick<Ledger, 'setBalance'> => ({
  setBalance: async (input) => {
    const balance = amountOf(input.currencyId, input.balance, 'balance', false);
    if (isLeft(balance)) return balance;
    const operationKey = input.operationKey ?? newId();
    return kit.adminBalanceCommand(input, {
      type: 'SetBalance',
      data: { adminUserId: input.adminUserId, operationKey, currencyId: input.currencyId, balance: balance.right },
    });
  },
});
