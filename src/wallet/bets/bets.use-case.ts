import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { CurrencyId } from '../../domain/money/currency.js';
import { usdFromMinor } from '../../domain/money/money.js';
import type { WalletCommand } from '../../domain/wallet/wallet.commands.js';
import { GuardRefused } from '../../infra/event-store/event-store.port.js';
import { betGuardRefusal } from '../../commands/bet-guard.js';
import { figuresWith, limitGuard } from '../../commands/limit-figures.js';
import type { Ledger, LedgerError, LedgerResult } from '../../commands/ledger.types.js';
import { betView } from '../../commands/views.js';
import { amountOf, type WalletKit } from '../../commands/wallet-kit.js';
import { statedTime } from '../../commands/business-time.js';

type BetUseCases = Pick<Ledger, 'placeBet' | 'settleBet' | 'rollbackBet' | 'errorBet'>;

/** A game server's bet: the stake placed (guarded by the player's limits), then settled, rolled back or errored. */
export const betUseCases = (kit: WalletKit): BetUseCases => {
  const transition = async (
    betId: string,
    make: (currencyId: CurrencyId) => Promise<Either<LedgerError, WalletCommand>>,
  ): LedgerResult<ReturnType<typeof betView>> => {
    const userId = await kit.owner('bet', betId, { _tag: 'BetNotFound', betId });
    if (isLeft(userId)) return userId;
    // A bet's currency never changes: a cached wallet that holds the bet is enough, else the bet is looked up by its key.
    const bet =
      kit.handler.peek(userId.right)?.bets.get(betId) ?? (await kit.handler.lookup(userId.right, [`bet:${betId}`])).bets.get(betId);
    if (!bet) return left({ _tag: 'BetNotFound', betId });
    const command = await make(bet.currencyId);
    if (isLeft(command)) return command;
    return kit.run(userId.right, command.right, (s) => betView(userId.right, s.bets.get(betId)!));
  };

  return {
    placeBet: async (input) => {
      const money = await kit.money(input.currencyId, input.amount, input.usdAmount);
      if (isLeft(money)) return money;
      const refused = await kit.mayTransact(input.userId);
      if (refused) return left(refused);
      const guard = kit.deps.betGuard;
      const folded = guard?.inAppend === true && kit.deps.store.claimsKeys;
      if (guard && !folded) {
        // The cached wallet when this process holds one (it appends there itself); else read once.
        const wallet = kit.handler.peek(input.userId) ?? (await kit.handler.load(input.userId));
        const figures = figuresWith(wallet, input.effectiveAt ?? kit.now().toISOString(), 'loss', money.right.usdAmount);
        const refusal = await guard(input.userId, money.right.usdAmount, figures);
        if (refusal) return left(refusal);
      }
      const guards = folded ? [limitGuard(input.userId, usdFromMinor(money.right.usdAmount), 'loss')] : [];
      const place = () =>
        kit.run(
          input.userId,
          {
            type: 'PlaceBet',
            data: {
              betId: input.id,
              roundId: input.roundId,
              gameId: input.gameId,
              gameIdentity: input.gameIdentity,
              currencyId: input.currencyId,
              ...money.right,
              ...statedTime(input),
            },
          },
          (s, appended) => ({ bet: betView(input.userId, s.bets.get(input.id)!), created: appended }),
          undefined,
          [['bet', input.id]],
          guards,
        );
      if (!guard || !folded) return place();
      try {
        const result = await place();
        // A guard's refusal comes before the wallet's (a banned user without funds is told about the ban).
        return isLeft(result) ? left((await guard(input.userId, money.right.usdAmount)) ?? result.left) : result;
      } catch (error) {
        if (!(error instanceof GuardRefused)) throw error;
        // The append ran the guard and says what refused the bet: no second reading of the limits.
        const refusal = betGuardRefusal(input.userId, error.refusals?.find(Boolean));
        if (refusal) return left(refusal);
        throw error;
      }
    },
    settleBet: (betId, input) =>
      transition(betId, async (currencyId) => {
        const payout = amountOf(currencyId, input.payout, 'payout', false);
        if (isLeft(payout)) return payout;
        const usdPayout = await kit.usdOf(currencyId, payout.right, input.usdPayout, 'usdPayout');
        if (isLeft(usdPayout)) return usdPayout;
        return right({ type: 'SettleBet', data: { betId, payout: payout.right, usdPayout: usdPayout.right, ...statedTime(input) } });
      }),
    rollbackBet: (betId, input) => transition(betId, async () => right({ type: 'RollbackBet', data: { betId, ...statedTime(input) } })),
    errorBet: (betId, input) =>
      transition(betId, async () => right({ type: 'ErrorBet', data: { betId, errorDetails: input.errorDetails, ...statedTime(input) } })),
  };
};
