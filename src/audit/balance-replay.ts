import { userAccount } from '../domain/ledger/posting.js';
import type { CurrencyId } from '../domain/money/currency.js';
import { fromMinor, type DecimalString, type Minor } from '../domain/money/money.js';
import { walletEventOf } from '../domain/events.decode.js';
import { businessTimeOf, walletStream } from '../domain/wallet/wallet.events.js';
import { evolve } from '../domain/wallet/wallet.evolve.js';
import { initialWalletState } from '../domain/wallet/wallet.state.js';
import {
  comparePositions,
  formatPosition,
  parsePosition,
  START,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../infra/event-store/event-store.port.js';
import { laterOf, legSums, placeOf, readLegs } from './postings.js';

/**
 * Where an "as of" stops: now, a business time (events whose business time is at or before it), or a global position
 * (events at or before it, in recording order).
 */
export type PointInTime = Readonly<{ kind: 'now' }> | Readonly<{ kind: 'time'; at: Date }> | Readonly<{ kind: 'position'; at: Position }>;

export const NOW: PointInTime = Object.freeze({ kind: 'now' });

const POSITION = /^\d{1,20}\/\d{1,20}$/;
/** A full timestamp with its zone: a bare date or a local time would mean different instants on different machines. */
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** A timestamp with its zone, for the recording-time axis (known at). */
export const parseKnownAt = (input: string | undefined): Date | undefined | { error: string } => {
  if (input === undefined || input === '') return undefined;
  const at = ISO.test(input) ? new Date(input) : undefined;
  return at && !Number.isNaN(at.getTime()) ? at : { error: 'must be an ISO 8601 timestamp with a zone (2026-01-31T23:59:59Z)' };
};

export const parsePointInTime = (input: string | undefined): PointInTime | { error: string } => {
  if (input === undefined || input === '') return NOW;
  if (POSITION.test(input)) return { kind: 'position', at: parsePosition(input) };
  if (ISO.test(input)) {
    const at = new Date(input);
    if (!Number.isNaN(at.getTime())) return { kind: 'time', at };
  }
  return { error: 'must be an ISO 8601 timestamp with a zone (2026-01-31T23:59:59Z) or a global position "commit/prepare"' };
};

export const formatPointInTime = (p: PointInTime): string | null =>
  p.kind === 'now' ? null : p.kind === 'time' ? p.at.toISOString() : formatPosition(p.at);

/** The two times of a stored event: what the decider wrote, else (an event without them) the store's own time. */
export const timesOfRecorded = (e: RecordedEvent): Readonly<{ businessAt: number; recordedAt: number }> => {
  const d = e.data as { at?: unknown; effectiveAt?: unknown } | null;
  const at = typeof d?.at === 'string' ? d.at : e.createdAt.toISOString();
  const effectiveAt = typeof d?.effectiveAt === 'string' ? d.effectiveAt : undefined;
  return { businessAt: Date.parse(businessTimeOf(effectiveAt ? { at, effectiveAt } : { at })), recordedAt: Date.parse(at) };
};

/** Whether an event counts as of `point` (business time, or position) and was recorded by `knownAt` (when given). */
export const atOrBefore = (point: PointInTime, e: RecordedEvent, knownAt?: Date): boolean => {
  const times = point.kind === 'time' || knownAt ? timesOfRecorded(e) : undefined;
  if (knownAt && times!.recordedAt > knownAt.getTime()) return false;
  return point.kind === 'now'
    ? true
    : point.kind === 'time'
      ? times!.businessAt <= point.at.getTime()
      : comparePositions(e.position, point.at) <= 0;
};

export type Amount = Readonly<{ currencyId: CurrencyId; amount: DecimalString }>;

export type Movement = Readonly<{
  position: string;
  revision: string;
  recordedAt: string;
  decidedAt: string | null;
  /** The event's business time (its effectiveAt, or its decision time for events that predate it). */
  effectiveAt: string | null;
  type: string;
  transactionId: string | null;
  currencyId: CurrencyId;
  /** Signed, from the user's point of view. */
  amount: DecimalString;
  balance: DecimalString;
}>;

export type UserReplay = Readonly<{
  userId: number;
  /** The point: a business time, a position, or null (now). */
  at: string | null;
  /** The recording time the replay's knowledge was cut at, or null (all that is recorded). */
  knownAt: string | null;
  position: string | null;
  events: number;
  balances: readonly Amount[];
  movements: readonly Movement[];
}>;

const PAGE = 1_000;

const sortedAmounts = (balances: Iterable<[CurrencyId, Minor]>): Amount[] =>
  [...balances]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currencyId, minor]) => ({ currencyId, amount: fromMinor(currencyId, minor) }));

/**
 * Folded from the wallet stream alone (never a read model) with the domain's own `evolve`, in stream order, over the
 * events that count as of `point` and (with `knownAt`) were recorded by then: the balance as of D as the ledger knew it at T.
 */
export const replayUser = async (
  deps: Readonly<{ store: EventStore }>,
  userId: number,
  point: PointInTime = NOW,
  knownAt?: Date,
): Promise<UserReplay> => {
  const streamId = walletStream(userId);
  const own = userAccount(userId);
  let state = initialWalletState(userId);
  const movements: Movement[] = [];
  let last: Position | undefined;
  let events = 0;
  for (let from = 0n; ;) {
    const page = await deps.store.readStream(streamId, { fromRevision: from, maxCount: PAGE });
    for (const e of page) {
      const event = walletEventOf(e);
      if (!atOrBefore(point, e, knownAt) || !event) continue;
      const read = readLegs(e);
      if (read && 'problem' in read) throw new Error(`${placeOf(e)}: ${read.problem}`);
      try {
        state = evolve(state, event);
      } catch (error) {
        throw new Error(`${placeOf(e)}: ${(error as Error).message}`, { cause: error });
      }
      events += 1;
      last = laterOf(last, e.position);
      const mine = legSums(read?.legs.filter((l) => l.account === own) ?? []);
      for (const [currencyId, delta] of mine) {
        const data = e.data as { at?: unknown; transactionId?: unknown };
        movements.push({
          position: formatPosition(e.position),
          revision: e.revision.toString(),
          recordedAt: e.createdAt.toISOString(),
          decidedAt: typeof data.at === 'string' ? data.at : null,
          effectiveAt: event.data.at === undefined ? null : businessTimeOf(event.data),
          type: e.type,
          transactionId: typeof data.transactionId === 'string' ? data.transactionId : null,
          currencyId,
          amount: fromMinor(currencyId, delta),
          balance: fromMinor(currencyId, state.balances.get(currencyId) ?? 0n),
        });
      }
    }
    if (page.length < PAGE) break;
    from = page[page.length - 1]!.revision + 1n;
  }
  return {
    userId,
    at: formatPointInTime(point),
    knownAt: knownAt?.toISOString() ?? null,
    position: last ? formatPosition(last) : null,
    events,
    balances: sortedAmounts(state.balances.entries()),
    movements,
  };
};

export type AccountBalance = Readonly<{ account: string; currencyId: CurrencyId; balance: DecimalString }>;

export type HouseBalances = Readonly<{
  /** The point: a business time, a position, or null (now). */
  at: string | null;
  /** The recording time the balances' knowledge was cut at, or null. */
  knownAt: string | null;
  position: string | null;
  events: number;
  accounts: readonly AccountBalance[];
  /** Per currency, the sum over all accounts: zero in a sound ledger. */
  trial: readonly Amount[];
  balanced: boolean;
  /** Events whose postings could not be read (tampered or corrupt); their legs are left out. */
  problems: readonly string[];
}>;

export type HouseBalancesOptions = Readonly<{
  /** Only events recorded at or before it: the balances as the ledger knew them then. */
  knownAt?: Date | undefined;
  batchSize?: number;
  onProgress?: (read: number, position: Position) => void;
}>;

/** Read in global order, up to the head as it was when the read started. */
export const houseBalances = async (
  deps: Readonly<{ store: EventStore }>,
  point: PointInTime = NOW,
  options: HouseBalancesOptions = {},
): Promise<HouseBalances> => {
  const head = await deps.store.headPosition();
  const end = point.kind === 'position' && comparePositions(point.at, head) < 0 ? point.at : head;
  const sums = new Map<string, { account: string; currencyId: CurrencyId; sum: Minor }>();
  const problems: string[] = [];
  let last: Position | undefined;
  let events = 0;
  let read = 0;
  for (let after = START; comparePositions(after, end) < 0;) {
    const batch = await deps.store.readAll({ after, maxCount: options.batchSize ?? 5_000 });
    if (batch.length === 0) break;
    for (const e of batch) {
      if (comparePositions(e.position, end) > 0 || !atOrBefore(point, e, options.knownAt)) continue;
      const legs = readLegs(e);
      if (!legs) continue;
      if ('problem' in legs) {
        problems.push(`${placeOf(e)}: ${legs.problem}`);
        continue;
      }
      events += 1;
      last = laterOf(last, e.position);
      for (const l of legs.legs) {
        const key = `${l.account}\u0000${l.currencyId}`;
        const prev = sums.get(key) ?? { account: l.account, currencyId: l.currencyId, sum: 0n };
        sums.set(key, { ...prev, sum: prev.sum + l.amount });
      }
    }
    read += batch.length;
    after = batch[batch.length - 1]!.position;
    options.onProgress?.(read, after);
  }
  const accounts = [...sums.values()].sort((a, b) =>
    a.currencyId === b.currencyId ? (a.account < b.account ? -1 : 1) : a.currencyId < b.currencyId ? -1 : 1,
  );
  const trialSums = new Map<CurrencyId, Minor>();
  for (const a of accounts) trialSums.set(a.currencyId, (trialSums.get(a.currencyId) ?? 0n) + a.sum);
  return {
    at: formatPointInTime(point),
    knownAt: options.knownAt?.toISOString() ?? null,
    position: last ? formatPosition(last) : null,
    events,
    accounts: accounts.map((a) => ({ account: a.account, currencyId: a.currencyId, balance: fromMinor(a.currencyId, a.sum) })),
    trial: sortedAmounts(trialSums.entries()),
    balanced: [...trialSums.values()].every((s) => s === 0n),
    problems,
  };
};
