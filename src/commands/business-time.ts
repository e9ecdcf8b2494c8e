import type { BusinessTime } from '../domain/wallet/wallet.commands.js';
import type { BusinessTimeInput, LedgerError } from './ledger.types.js';

/** How far a caller's business time may lie from the recording time (BUSINESS_TIME_MAX_SKEW_MS, BUSINESS_TIME_MAX_AGE_DAYS). */
export type BusinessTimeBounds = Readonly<{ maxSkewMs: number; maxAgeDays: number }>;
export const DEFAULT_BUSINESS_TIME_BOUNDS: BusinessTimeBounds = { maxSkewMs: 60_000, maxAgeDays: 400 };

const DAY_MS = 86_400_000;

/**
 * A caller's business time (ISO 8601 with zone, shape-checked at the edge) in UTC, or why it is refused: it may be
 * at most `maxSkewMs` after the recording time (a caller's clock running ahead) and at most `maxAgeDays` before it.
 */
export const boundedBusinessTime = (
  given: string,
  recordedAt: Date,
  bounds: BusinessTimeBounds,
  field = 'effectiveAt',
): Readonly<{ effectiveAt: string }> | LedgerError => {
  const ms = Date.parse(given);
  const refused = (message: string): LedgerError => ({ _tag: 'InvalidBusinessTime', field, message });
  if (Number.isNaN(ms)) return refused('must be an ISO 8601 date-time with zone');
  const latest = recordedAt.getTime() + bounds.maxSkewMs;
  const earliest = recordedAt.getTime() - bounds.maxAgeDays * DAY_MS;
  if (ms > latest) return refused(`must not be later than the recording time plus ${bounds.maxSkewMs} ms`);
  if (ms < earliest) return refused(`must not be more than ${bounds.maxAgeDays} days before the recording time`);
  return { effectiveAt: new Date(ms).toISOString() };
};

/** The business time a caller stated, as a command carries it (nothing when none was stated). */
export const statedTime = (input?: BusinessTimeInput): BusinessTime =>
  input?.effectiveAt === undefined ? {} : { effectiveAt: input.effectiveAt };
