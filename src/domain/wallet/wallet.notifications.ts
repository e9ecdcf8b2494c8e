import { v5 as uuidv5 } from 'uuid';
import { isWalletEventType, walletStreamUserId, type WalletEvent } from './wallet.events.js';

export const NOTIFICATION_TYPES = [
  'DEPOSIT_COMPLETED',
  'WITHDRAWAL_APPROVED',
  'WITHDRAWAL_REJECTED',
  'WITHDRAWAL_COMPLETED',
  'ADMIN_TIP_RECEIVED',
  'BALANCE_DEDUCTED',
  'LEADERBOARD_PRIZE',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** One in-app notification as the projection stores it and NotificationEventMessage pushes it. */
export type LedgerNotification = Readonly<{
  id: string;
  userId: number;
  type: NotificationType;
  payload: Readonly<Record<string, unknown>>;
  /** The event's own time (data.at), so a rebuild writes the same rows. */
  createdAt: string;
  position: string;
}>;

/** Fixed namespace of notification ids (uuid v5 over "<event id>:<type>"). */
const NOTIFICATION_NAMESPACE = '6f1d2c7e-93a4-4b8e-9a53-0c1e2f3a4b5c';

/** The same event always gives the same id: a rebuild keeps read marks, and the socket and the table agree. */
export const notificationId = (eventId: string, type: NotificationType): string => uuidv5(`${eventId}:${type}`, NOTIFICATION_NAMESPACE);

export const NOTIFYING_EVENT_TYPES = [
  'DepositCompleted',
  'WithdrawalApproved',
  'WithdrawalRejected',
  'WithdrawalCompleted',
  'AdminTipCredited',
  'AdminTipDeducted',
  'LeaderboardPrizeCredited',
] as const satisfies readonly WalletEvent['type'][];

const what = (e: WalletEvent): [NotificationType, Record<string, unknown>] | undefined => {
  switch (e.type) {
    case 'DepositCompleted': {
      const d = e.data;
      return ['DEPOSIT_COMPLETED', { depositId: d.depositId, amount: d.amount, currencyId: d.currencyId, usdAmount: d.usdAmount }];
    }
    case 'WithdrawalApproved':
      return ['WITHDRAWAL_APPROVED', { withdrawalId: e.data.withdrawalId }];
    case 'WithdrawalRejected': {
      const d = e.data;
      return [
        'WITHDRAWAL_REJECTED',
        { withdrawalId: d.withdrawalId, amount: d.amount, currencyId: d.currencyId, rejectReason: d.rejectReason },
      ];
    }
    case 'WithdrawalCompleted': {
      const d = e.data;
      return [
        'WITHDRAWAL_COMPLETED',
        { withdrawalId: d.withdrawalId, amount: d.amount, currencyId: d.currencyId, usdAmount: d.usdAmount, txHash: d.txHash },
      ];
    }
    // The admin's notes are internal (spec "Admin tip"): never part of what the user is shown.
    case 'AdminTipCredited': {
      const d = e.data;
      return ['ADMIN_TIP_RECEIVED', { tipId: d.tipId, amount: d.amount, currencyId: d.currencyId, usdAmount: d.usdAmount }];
    }
    case 'AdminTipDeducted':
      return ['BALANCE_DEDUCTED', { tipId: e.data.tipId, amount: e.data.amount, currencyId: e.data.currencyId }];
    case 'LeaderboardPrizeCredited': {
      const d = e.data;
      return ['LEADERBOARD_PRIZE', { leaderboardId: d.leaderboardId, amount: d.amount, currencyId: d.currencyId, usdAmount: d.usdAmount }];
    }
    default:
      return undefined;
  }
};

export type NotifyingRecord = Readonly<{
  id: string;
  streamId: string;
  type: string;
  data: unknown;
  position: Readonly<{ commit: bigint; prepare: bigint }>;
}>;

/** Pure, so that the projection and the realtime publisher agree on every notification's id and payload. */
export const notificationsOf = (recorded: NotifyingRecord): LedgerNotification[] => {
  const userId = walletStreamUserId(recorded.streamId);
  if (userId === undefined || !isWalletEventType(recorded.type)) return [];
  const found = what({ type: recorded.type, data: recorded.data } as WalletEvent);
  if (!found) return [];
  const [type, payload] = found;
  return [
    {
      id: notificationId(recorded.id, type),
      userId,
      type,
      payload,
      createdAt: String((recorded.data as { at: string }).at),
      position: `${recorded.position.commit}/${recorded.position.prepare}`,
    },
  ];
};
