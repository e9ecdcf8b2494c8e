import { ADMIN_TIPS_COUNTS } from '../../read-models/list-counts/list-counts.js';
import { rowProjection } from '../../read-models/list-projections.js';
import { businessTimeOf } from '../../domain/wallet/wallet.events.js';

/** Admin tips: ADD_BALANCE (AdminTipCredited) and DEDUCT_BALANCE (AdminTipDeducted); rows never change. */
export const adminTipsProjection = rowProjection({
  name: 'admin-tips',
  version: 2,
  handles: ['AdminTipCredited', 'AdminTipDeducted'],
  list: ADMIN_TIPS_COUNTS,
  row: ({ userId, event }) => {
    if (event.type !== 'AdminTipCredited' && event.type !== 'AdminTipDeducted') return undefined;
    const d = event.data;
    return {
      id: d.tipId,
      type: event.type === 'AdminTipCredited' ? 'ADD_BALANCE' : 'DEDUCT_BALANCE',
      currency_id: d.currencyId,
      amount: d.amount,
      usd_amount: d.usdAmount,
      tag: d.tag,
      notes: d.notes,
      sender_user_id: d.adminUserId,
      recipient_user_id: userId,
      operation_key: d.operationKey,
      transaction_id: d.transactionId,
      created_at: d.at,
      effective_at: businessTimeOf(d),
    };
  },
});
