import { isLeft } from 'fp-ts/lib/Either.js';
import type { Ledger } from '../../commands/ledger.types.js';
import type { WalletKit } from '../../commands/wallet-kit.js';
import { newId } from '../../shared/ids.js';

/** A leaderboard prize credited by an admin to a winner's wallet. */
export const prizeUseCases = (kit: WalletKit): Pick<Ledger, 'creditPrize'> => ({
  creditPrize: async (input) => {
    const money = await kit.money(input.currencyId, input.amount, input.usdAmount);
    if (isLeft(money)) return money;
    const operationKey = input.operationKey ?? newId();
    return kit.adminBalanceCommand(input, {
      type: 'CreditPrize',
      data: {
        adminUserId: input.adminUserId,
        operationKey,
        leaderboardId: input.leaderboardId,
        leaderboardUserId: input.leaderboardUserId,
        currencyId: input.currencyId,
        ...money.right,
      },
    });
  },
});
