import { isCurrencyId, scaleOf, type CurrencyId } from '../domain/money/currency.js';
import { isParseError, parseDecimal, type Minor } from '../domain/money/money.js';
import { comparePositions, formatPosition, type Position, type RecordedEvent } from '../infra/event-store/event-store.port.js';

export type StoredLeg = Readonly<{ account: string; currencyId: CurrencyId; amount: Minor }>;

/** Checked without trusting the event: the audit tools read tampered data and must name the problem, not throw. */
export const readLegs = (event: RecordedEvent): { legs: StoredLeg[] } | { problem: string } | undefined => {
  const raw = (event.data as { postings?: unknown }).postings;
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) return { problem: 'postings is not an array' };
  const legs: StoredLeg[] = [];
  for (const [i, p] of raw.entries()) {
    const leg = p as { account?: unknown; currencyId?: unknown; amount?: unknown } | null;
    if (typeof leg?.account !== 'string' || leg.account === '') return { problem: `posting ${i}: no account` };
    if (typeof leg.currencyId !== 'string' || !isCurrencyId(leg.currencyId))
      return { problem: `posting ${i}: unknown currency ${String(leg.currencyId)}` };
    if (typeof leg.amount !== 'string') return { problem: `posting ${i}: amount is not a decimal string` };
    const amount = parseDecimal(leg.amount, scaleOf(leg.currencyId));
    if (isParseError(amount)) return { problem: `posting ${i}: amount "${leg.amount}": ${amount.message}` };
    legs.push({ account: leg.account, currencyId: leg.currencyId, amount });
  }
  return { legs };
};

export const legSums = (legs: readonly StoredLeg[]): Map<CurrencyId, Minor> => {
  const sums = new Map<CurrencyId, Minor>();
  for (const l of legs) sums.set(l.currencyId, (sums.get(l.currencyId) ?? 0n) + l.amount);
  return sums;
};

/** Where an event sits, for messages: "stream wallet-5 revision 3 position 741/12 (BetPlaced)". */
export const placeOf = (e: RecordedEvent): string =>
  `stream ${e.streamId} revision ${e.revision} position ${formatPosition(e.position)} (${e.type}, event ${e.id})`;

export const laterOf = (a: Position | undefined, b: Position): Position => (a && comparePositions(a, b) >= 0 ? a : b);
