import { isLeft } from 'fp-ts/lib/Either.js';
import { fromMinor, usdFromMinor } from '../../domain/money/money.js';
import type { Ledger } from '../../commands/ledger.types.js';
import type { WalletKit } from '../../commands/wallet-kit.js';
import { statedTime } from '../../commands/business-time.js';

/** An affiliate's claimed commission paid into their wallet, once per claim id. */
export const affiliateClaimUseCases = (kit: WalletKit): Pick<Ledger, 'claimAffiliateCommission'> => ({
  claimAffiliateCommission: async (input) => {
    const money = await kit.money(input.currencyId, input.amount, input.usdAmount);
    if (isLeft(money)) return money;
    const operationKey = `affiliate-claim:${input.claimId}`;
    return kit.run(
      input.userId,
      {
        type: 'ClaimAffiliateCommission',
        data: { claimId: input.claimId, operationKey, currencyId: input.currencyId, ...money.right, ...statedTime(input) },
      },
      (s, appended) => {
        // The claim as first paid (a repeat answers the same, whatever usdAmount it sent or the balance did since).
        const c = s.claims.get(input.claimId)!;
        return {
          claim: {
            claimId: input.claimId,
            userId: input.userId,
            currencyId: c.currencyId,
            amount: fromMinor(c.currencyId, c.amount),
            usdAmount: usdFromMinor(c.usdAmount),
            transactionId: c.transactionId,
            balance: fromMinor(c.currencyId, c.balanceAfter),
          },
          created: appended,
        };
      },
      undefined,
      [['affiliate-claim', input.claimId]],
    );
  },
});
