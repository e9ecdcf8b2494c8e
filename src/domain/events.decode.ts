import { isUserEventType, type UserEvent } from './user/user.events.js';
import { isWalletEventType, type WalletEvent } from './wallet/wallet.events.js';

export type StoredEvent = Readonly<{ type: string; data: unknown }>;

/** The one place a stored wallet event becomes a domain event; undefined for any other type. The decider wrote the data. */
export const walletEventOf = (e: StoredEvent): WalletEvent | undefined =>
  isWalletEventType(e.type) ? ({ type: e.type, data: e.data } as WalletEvent) : undefined;

/** The one place a stored user event becomes a domain event; undefined for any other type. */
export const userEventOf = (e: StoredEvent): UserEvent | undefined =>
  isUserEventType(e.type) ? ({ type: e.type, data: e.data } as UserEvent) : undefined;
