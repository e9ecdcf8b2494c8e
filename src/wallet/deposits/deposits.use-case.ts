import { isLeft, isRight, left } from 'fp-ts/lib/Either.js';
import type { Minor } from '../../domain/money/money.js';
import type { WalletCommand } from '../../domain/wallet/wallet.commands.js';
import { depositExternalKey, type DepositEntry, type WalletState } from '../../domain/wallet/wallet.state.js';
import { GuardRefused } from '../../infra/event-store/event-store.port.js';
import { betGuardRefusal } from '../../commands/bet-guard.js';
import { figuresWith, limitGuard } from '../../commands/limit-figures.js';
import type { DepositView, Ledger, LedgerResult } from '../../commands/ledger.types.js';
import { depositView, heldDepositView } from '../../commands/views.js';
import type { WalletKit } from '../../commands/wallet-kit.js';
import type { WalletGuard } from '../../commands/wallet.handler.js';
import { newId } from '../../shared/ids.js';
import { statedTime } from '../../commands/business-time.js';

type DepositUseCases = Pick<
  Ledger,
  'requestDeposit' | 'confirmDeposit' | 'completeDeposit' | 'failDeposit' | 'releaseDeposit' | 'returnDeposit'
>;
type Requested = LedgerResult<Readonly<{ deposit: DepositView; created: boolean }>>;

/** A payment provider's deposit: requested once per provider and external id, then confirmed, completed or failed. */
export const depositUseCases = (kit: WalletKit): DepositUseCases => {
  const transition = async <V>(
    depositId: string,
    command: WalletCommand,
    view: (userId: number, entry: DepositEntry) => V,
  ): LedgerResult<V> => {
    const userId = await kit.owner('deposit', depositId, { _tag: 'DepositNotFound', depositId });
    if (isLeft(userId)) return userId;
    return kit.run(userId.right, command, (s) => view(userId.right, s.deposits.get(depositId)!));
  };

  /**
   * A deposit request checked against the player's deposit limits in the append (the bet guard's rule, as a bet is
   * against its loss limits): past a limit it is refused (DEPOSIT_LIMIT_EXCEEDED) before any money moves; one that
   * names its transaction (txHash: the money has moved) is recorded over limit instead, and completes held.
   */
  const withinLimits = async (
    userId: number,
    usdAmount: Minor,
    moved: boolean,
    request: (overLimit: boolean, guards: readonly WalletGuard[]) => Requested,
  ): Requested => {
    const guard = kit.deps.betGuard;
    if (!guard) return request(false, []);
    const overLimit = (refusal: ReturnType<typeof betGuardRefusal>): Requested | undefined => {
      if (!refusal) return undefined;
      return refusal._tag === 'DepositLimitExceeded' && moved ? request(true, []) : Promise.resolve(left(refusal));
    };
    if (!(guard.inAppend === true && kit.deps.store.claimsKeys)) {
      const wallet = kit.handler.peek(userId) ?? (await kit.handler.load(userId));
      const figures = figuresWith(wallet, kit.now().toISOString(), 'deposits', usdAmount);
      return overLimit(await guard(userId, null, figures)) ?? request(false, []);
    }
    try {
      return await request(false, [limitGuard(userId, null, 'deposits')]);
    } catch (error) {
      if (!(error instanceof GuardRefused)) throw error;
      const refused = overLimit(betGuardRefusal(userId, error.refusals?.find(Boolean)));
      if (!refused) throw error;
      return refused;
    }
  };

  return {
    requestDeposit: async (input) => {
      const money = await kit.money(input.currencyId, input.amount, input.usdAmount);
      if (isLeft(money)) return money;
      const externalKey = depositExternalKey(input.providerId, input.externalId);
      const depositId = newId();
      let after: WalletState | undefined;
      const request = (overLimit: boolean, guards: readonly WalletGuard[]): Requested =>
        kit.run(
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
              ...(overLimit ? { overLimit } : {}),
              ...statedTime(input),
            },
          },
          (s) => {
            after = s;
            const id = s.depositsByExternalKey.get(externalKey)!;
            return { deposit: depositView(input.userId, s.deposits.get(id)!), created: id === depositId };
          },
          undefined,
          [
            ['deposit-ext', externalKey],
            ['deposit', depositId],
          ],
          guards,
        );
      const requested = await withinLimits(input.userId, money.right.usdAmount, Boolean(input.txHash), request);
      if (isRight(requested) && requested.right.created && after)
        await kit.linkedCheck(input.userId, after, input.effectiveAt ?? requested.right.deposit.createdAt, depositId);
      return requested;
    },
    confirmDeposit: (depositId, input) =>
      transition(
        depositId,
        { type: 'ConfirmDeposit', data: { depositId, txHash: input.txHash ?? null, ...statedTime(input) } },
        depositView,
      ),
    completeDeposit: (depositId, input) =>
      transition(
        depositId,
        { type: 'CompleteDeposit', data: { depositId, txHash: input.txHash ?? null, ...statedTime(input) } },
        depositView,
      ),
    failDeposit: (depositId, input) =>
      transition(depositId, { type: 'FailDeposit', data: { depositId, reason: input.reason, ...statedTime(input) } }, depositView),
    // The back office's decision on a held deposit: its business time is when the admin acted (the decision time).
    releaseDeposit: (depositId, { adminUserId, reason }) =>
      transition(depositId, { type: 'ReleaseDeposit', data: { depositId, adminUserId, reason } }, heldDepositView),
    returnDeposit: (depositId, { adminUserId, reason }) =>
      transition(depositId, { type: 'ReturnDeposit', data: { depositId, adminUserId, reason } }, heldDepositView),
  };
};
