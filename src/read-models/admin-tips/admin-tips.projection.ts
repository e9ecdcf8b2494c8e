import { ADMIN_TIPS_COUNTS, counted } from '../list-counts/list-counts.js';
import { insertRows, walletRecords, type Projection, type Row } from '../../projections/projection.js';

const HANDLES: readonly string[] = ['AdminTipCredited', 'AdminTipDeducted'];
/** Admin tips: ADD_BALANCE (AdminTipCredited) and DEDUCT_BALANCE (AdminTipDeducted); rows never change. */
export const adminTipsProjection: Projection = {
  name: 'admin-tips',
  version: 2,
  handles: HANDLES,
  tables: ['admin_tips', 'admin_tips_counts'],
  project(events) {
    const rows: Row[] = [];
    for (const { userId, event } of walletRecords(events, HANDLES)) {
      if (event.type !== 'AdminTipCredited' && event.type !== 'AdminTipDeducted') continue;
      const d = event.data;
      rows.push({
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
      });
    }
    return counted(ADMIN_TIPS_COUNTS, rows, [], insertRows('admin_tips', rows));
  },
};
