import { isParseError, parseDecimal, type Minor } from '../money/money.js';
import { USD_SCALE } from '../money/currency.js';

/**
 * Deposit and loss limits (docs/compliance.md): per player, per rolling window, in USD. A tightening applies at once;
 * a loosening (a higher value, or removal) waits COOLING_OFF_MS as `pending` and applies by itself when that time comes.
 */
export const LIMIT_KINDS = ['deposit', 'loss'] as const;
export type LimitKind = (typeof LIMIT_KINDS)[number];
export const LIMIT_WINDOWS = ['24h', '7d', '30d'] as const;
export type LimitWindow = (typeof LIMIT_WINDOWS)[number];
/** Each window as whole hours (the wallet tallies activity per clock hour). */
export const WINDOW_HOURS: Readonly<Record<LimitWindow, number>> = { '24h': 24, '7d': 168, '30d': 720 };
export const COOLING_OFF_MS = 24 * 3_600_000;

export type LimitKey = `${LimitKind}-${LimitWindow}`;
export const limitKey = (kind: LimitKind, window: LimitWindow): LimitKey => `${kind}-${window}`;

/** `value` in force until `pendingAt`, then `pendingValue` (null: no limit); `pendingAt` null: nothing pending. */
export type GamblingLimit = Readonly<{
  value: string | null;
  pendingValue: string | null;
  pendingAt: string | null;
  updatedAt: string;
}>;
export type GamblingLimits = Readonly<Partial<Record<LimitKey, GamblingLimit>>>;

const usd = (value: string): Minor => {
  const minor = parseDecimal(value, USD_SCALE);
  if (isParseError(minor)) throw new Error(`invariant: limit ${value} is not a USD decimal`);
  return minor;
};

/** The value in force at `now` (null: none). */
export const effectiveLimit = (limit: GamblingLimit | undefined, now: Date): string | null => {
  if (!limit) return null;
  return limit.pendingAt !== null && Date.parse(limit.pendingAt) <= now.getTime() ? limit.pendingValue : limit.value;
};

/**
 * The record after asking for `wanted` (null: remove) at `now`: a lower value, or a first one, applies at once and drops
 * whatever was pending; the value in force again drops the pending change; a higher value or a removal is pending.
 * Undefined: nothing changes.
 */
export const nextLimit = (limit: GamblingLimit | undefined, wanted: string | null, now: Date): GamblingLimit | undefined => {
  const at = now.toISOString();
  const current = effectiveLimit(limit, now);
  const pending = limit && limit.pendingAt !== null && Date.parse(limit.pendingAt) > now.getTime();
  const tighter = wanted !== null && (current === null || usd(wanted) < usd(current));
  const same = wanted === current || (wanted !== null && current !== null && usd(wanted) === usd(current));
  if (tighter || same) {
    if (same && !pending) return undefined;
    return { value: wanted, pendingValue: null, pendingAt: null, updatedAt: at };
  }
  if (
    pending &&
    (limit.pendingValue === wanted || (wanted !== null && limit.pendingValue !== null && usd(wanted) === usd(limit.pendingValue)))
  )
    return undefined;
  return { value: current, pendingValue: wanted, pendingAt: new Date(now.getTime() + COOLING_OFF_MS).toISOString(), updatedAt: at };
};
