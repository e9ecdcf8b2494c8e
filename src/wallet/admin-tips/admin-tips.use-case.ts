import { isLeft } from 'fp-ts/lib/Either.js';
import { fromMinor } from '../../domain/money/money.js';
import type { Ledger } from '../../commands/ledger.types.js';
import type { WalletKit } from '../../commands/wallet-kit.js';

type AdminTipUseCases = Pick<Ledger, 'tip' | 'deductBalance'>;

/** An admin's tip to a player, or deduction from them: an amount at the current USD rate, numbered, tagged, noted. */
export const adminTipUseCases = (kit: WalletKit): AdminTipUseCases => {
  const tipIds = async (): Promise<number> =>
    Number((await kit.deps.pool.query<{ id: string }>(`SELECT nextval('admin_tip_id_seq') AS id`)).rows[0]!.id);

  const adminTip =
    (type: 'TipUser' | 'DeductBalance'): Ledger['tip'] =>
    async (input) => {
      const money = await kit.money(input.currencyId, input.amount, undefined);
      if (isLeft(money)) return money;
      const tipId = await tipIds();
      const operationKey = input.operationKey ?? `tip-${tipId}`;
      return kit.run(
        input.recipientUserId,
        {
          type,
          data: {
            adminUserId: input.adminUserId,
            operationKey,
            tipId,
            currencyId: input.currencyId,
            ...money.right,
            tag: input.tag ?? null,
            notes: input.notes,
          },
        },
        (s) => ({
          id: Number(s.operations.get(operationKey)?.ref ?? tipId),
          recipientUserId: input.recipientUserId,
          currencyId: input.currencyId,
          amount: fromMinor(input.currencyId, money.right.amount),
          type: type === 'TipUser' ? 'ADD_BALANCE' : 'DEDUCT_BALANCE',
        }),
        { adminUserId: input.adminUserId },
      );
    };

  return { tip: adminTip('TipUser'), deductBalance: adminTip('DeductBalance') };
};
