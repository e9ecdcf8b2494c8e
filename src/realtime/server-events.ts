import { userEventOf, walletEventOf } from '../domain/events.decode.js';
import type { CurrencyId } from '../domain/money/currency.js';
import { toMinor, toUsdMinor, usdFromMinor, usdToMinor, type DecimalString } from '../domain/money/money.js';
import { userStreamUserId, type UserEvent } from '../domain/user/user.events.js';
import { vipLevelOf } from '../domain/user/vip.js';
import { hasMovement, walletStreamUserId, type BetTerms, type WalletEvent, type WalletEventOf } from '../domain/wallet/wallet.events.js';
import { formatPosition, type RecordedEvent } from '../infra/event-store/event-store.port.js';
import { notificationsOf } from '../domain/wallet/wallet.notifications.js';
import { TRANSACTION_TYPES } from '../domain/wallet/wallet.transaction-types.js';

export const USER_SERVER_EVENTS = [
  'BalanceUpdated',
  'BalanceTippedSuccess',
  'AffiliateClaimSuccess',
  'MyBets',
  'ProfileUpdated',
  'NotificationEventMessage',
] as const;
export type UserServerEventName = (typeof USER_SERVER_EVENTS)[number];

/** Tagged with the ledger position it came from. */
export type UserServerEvent = Readonly<{
  name: UserServerEventName;
  userId: number;
  /** Ledger position (commit/prepare): clients use it to detect gaps and ask for a replay. */
  position: string;
  payload: unknown;
}>;

/** What a bet's later events need of its BetPlaced. */
export type BetPlacement = BetTerms<DecimalString> & Readonly<{ betId: string; userId: number; placedAt: string }>;

/** Spec "Bet" without `user`. Decimal strings for money, ISO 8601 times. */
export type BetRecord = Readonly<{
  id: string;
  userId: number;
  roundId: string;
  gameId: number;
  currencyId: CurrencyId;
  amount: string;
  payout: string;
  usdAmount: string;
  usdPayout: string;
  status: 'CREATED' | 'SETTLED' | 'ROLLBACK' | 'ERROR';
  /** 0 until SETTLED (its payout is 0 until then), as the lists answer it. */
  multiplier: number;
  errorDetails: string | null;
  commissionGgrUsdAmount: string;
  commissionGgrPercent: string;
  gameIdentity: Readonly<{ name: string; slug: string; type: string; provider: Readonly<{ name: string }>; images: null }>;
  createdAt: string;
  updatedAt: string;
  settledAt: string | null;
}>;

/** Read by the caller beforehand (see server-event-lookups.ts). */
export type EventLookups = Readonly<{
  usdRate: (currencyId: string) => DecimalString;
  /** The admin's username as it stood then, by event id. */
  tipperUsername: (eventId: string) => string | null;
  /** Undefined when unknown: the bet's MyBets is then left out. */
  placement?: (betId: string) => BetPlacement | undefined;
  /** USD staked on SETTLED bets strictly before this event; undefined: VIP levels are not followed. */
  wageredBefore?: (eventId: string) => DecimalString | undefined;
}>;

export const placementOf = (recorded: RecordedEvent): BetPlacement | undefined => {
  const userId = walletStreamUserId(recorded.streamId);
  const event = walletEventOf(recorded);
  if (userId === undefined || event?.type !== 'BetPlaced') return undefined;
  const d = event.data;
  return {
    betId: d.betId,
    userId,
    roundId: d.roundId,
    gameId: d.gameId,
    gameIdentity: d.gameIdentity,
    currencyId: d.currencyId,
    amount: d.amount,
    usdAmount: d.usdAmount,
    placedAt: d.at,
  };
};

const BET_EVENTS = ['BetPlaced', 'BetSettled', 'BetRolledBack', 'BetErrored'] as const;
type BetEvent = WalletEventOf<(typeof BET_EVENTS)[number]>;
const isBetEvent = (e: WalletEvent): e is BetEvent => (BET_EVENTS as readonly string[]).includes(e.type);

export const betRecordOf = (event: BetEvent, p: BetPlacement): BetRecord => {
  const base = {
    id: p.betId,
    userId: p.userId,
    roundId: p.roundId,
    gameId: p.gameId,
    currencyId: p.currencyId,
    amount: p.amount,
    usdAmount: p.usdAmount,
    payout: '0',
    usdPayout: '0',
    multiplier: 0,
    errorDetails: null,
    // No GGR commission is computed on this platform (as GET /bets).
    commissionGgrUsdAmount: '0',
    commissionGgrPercent: '0',
    gameIdentity: {
      name: p.gameIdentity.name,
      slug: p.gameIdentity.slug,
      type: p.gameIdentity.type,
      provider: { name: p.gameIdentity.provider.name },
      images: null,
    },
    createdAt: p.placedAt,
    settledAt: null,
  } as const;
  switch (event.type) {
    case 'BetPlaced':
      return { ...base, status: 'CREATED', updatedAt: p.placedAt };
    case 'BetSettled': {
      const d = event.data;
      return {
        ...base,
        status: 'SETTLED',
        payout: d.payout,
        usdPayout: d.usdPayout,
        // The spec's multiplier is a number; it is shown, never computed with.
        multiplier: Number(d.multiplier),
        updatedAt: d.at,
        settledAt: d.at,
      };
    }
    case 'BetRolledBack':
      return { ...base, status: 'ROLLBACK', updatedAt: event.data.at };
    case 'BetErrored':
      return { ...base, status: 'ERROR', errorDetails: event.data.errorDetails, updatedAt: event.data.at };
  }
};

export const settledBetOf = (recorded: RecordedEvent, lookups: Pick<EventLookups, 'placement'>): BetRecord | undefined => {
  const event = walletEventOf(recorded);
  if (event?.type !== 'BetSettled' || walletStreamUserId(recorded.streamId) === undefined) return undefined;
  const placement = lookups.placement?.(event.data.betId);
  return placement ? betRecordOf(event, placement) : undefined;
};

/** The admin-only flags (isTest, isBot, isStaff, ...) never go out. */
export const PUBLIC_PROFILE_KEYS = [
  'avatar',
  'isPrivate',
  'isStreamer',
  'isStreamerMode',
  'canUseChat',
  'isEmailNotificationsEnabled',
  'gamePlatformTradeLink',
] as const;

const profilePatchOf = (event: UserEvent): Record<string, unknown> | undefined => {
  switch (event.type) {
    case 'UsernameSet':
      return { username: event.data.username };
    case 'ProfileUpdated': {
      const changes = event.data.changes;
      const patch = Object.fromEntries(PUBLIC_PROFILE_KEYS.filter((k) => Object.hasOwn(changes, k)).map((k) => [k, changes[k]]));
      return Object.keys(patch).length > 0 ? patch : undefined;
    }
    case 'MfaEnabled':
      return { mfaEnabled: true };
    case 'MfaDisabled':
      return { mfaEnabled: false };
    case 'KycLevelSet':
      return { kycLevel: event.data.level };
    default:
      return undefined;
  }
};

const walletServerEvents = (recorded: RecordedEvent, userId: number, event: WalletEvent, lookups: EventLookups): UserServerEvent[] => {
  const position = formatPosition(recorded.position);
  const out: UserServerEvent[] = [];
  if (hasMovement(event)) {
    const d = event.data;
    const source = TRANSACTION_TYPES[event.type];
    if (source !== null && d.postings.some((p) => p.account === `user:${userId}`)) {
      const balance = toMinor(d.currencyId, d.balanceAfter);
      out.push({
        name: 'BalanceUpdated',
        userId,
        position,
        payload: {
          currencyId: d.currencyId,
          amount: d.balanceAfter,
          usdAmount: usdFromMinor(toUsdMinor(d.currencyId, balance, lookups.usdRate(d.currencyId))),
          source,
        },
      });
    }
  }
  if (event.type === 'AdminTipCredited') {
    out.push({
      name: 'BalanceTippedSuccess',
      userId,
      position,
      payload: { amount: event.data.amount, currencyId: event.data.currencyId, fromAdminUsername: lookups.tipperUsername(recorded.id) },
    });
  }
  if (event.type === 'AffiliateCommissionClaimed') {
    out.push({
      name: 'AffiliateClaimSuccess',
      userId,
      position,
      payload: { amount: event.data.amount, currencyId: event.data.currencyId },
    });
  }
  if (isBetEvent(event)) {
    const placement = event.type === 'BetPlaced' ? placementOf(recorded) : lookups.placement?.(event.data.betId);
    if (placement) out.push({ name: 'MyBets', userId, position, payload: [betRecordOf(event, placement)] });
  }
  if (event.type === 'BetSettled') {
    const before = lookups.wageredBefore?.(recorded.id);
    if (before !== undefined) {
      const after = usdFromMinor(usdToMinor(before) + usdToMinor(event.data.usdAmount));
      const level = vipLevelOf(after);
      if (level !== vipLevelOf(before)) out.push({ name: 'ProfileUpdated', userId, position, payload: { vipLevel: level } });
    }
  }
  for (const n of notificationsOf(recorded)) {
    out.push({ name: 'NotificationEventMessage', userId, position, payload: { id: n.id, type: n.type, payload: n.payload } });
  }
  return out;
};

/** Pure: the live publisher and the replay both use it, so both send the same events. */
export const serverEventsOf = (recorded: RecordedEvent, lookups: EventLookups): UserServerEvent[] => {
  const walletUser = walletStreamUserId(recorded.streamId);
  if (walletUser !== undefined) {
    const event = walletEventOf(recorded);
    return event ? walletServerEvents(recorded, walletUser, event, lookups) : [];
  }
  const user = userStreamUserId(recorded.streamId);
  const event = userEventOf(recorded);
  if (user === undefined || !event) return [];
  const patch = profilePatchOf(event);
  return patch ? [{ name: 'ProfileUpdated', userId: user, position: formatPosition(recorded.position), payload: patch }] : [];
};
