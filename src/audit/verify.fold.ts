import { HOUSE_ACCOUNTS, userAccount } from '../domain/ledger/posting.js';
import { isCurrencyId, scaleOf, type CurrencyId } from '../domain/money/currency.js';
import { fromMinor, isParseError, parseDecimal, type Minor } from '../domain/money/money.js';
import { isWalletEventType, walletStreamUserId } from '../domain/wallet/wallet.events.js';
import { comparePositions, formatPosition, type Position, type RecordedEvent } from '../infra/event-store/event-store.port.js';
import { MOVEMENT_EVENT_TYPES } from '../projections/projection.js';
import { TRANSACTION_TYPES } from '../domain/wallet/wallet.transaction-types.js';
import { legSums, placeOf, readLegs, type StoredLeg } from './postings.js';

export type DifferenceKind =
  /** A wallet snapshot is not the fold of its stream up to its revision (or its verified copy was edited). */
  | 'snapshot'
  /** A closed period's report, closing balances or seal disagree with its events (src/audit/verify.periods.ts). */
  | 'period'
  | 'stream-gap'
  /** The `streams` table's head revision is not the stream's last event (PostgreSQL store). */
  | 'stream-head'
  /** Postings that cannot be read: not an array, unknown currency or account, malformed amount. */
  | 'postings-invalid'
  | 'postings-unbalanced'
  /** The user's legs disagree with the amount the event states (amount, payout, balance − previousBalance). */
  | 'amount-mismatch'
  /** `balanceAfter` is not the user's balance folded from the stream. */
  | 'balance-after'
  /** Two events carry the same accounting transactionId (PostgreSQL store): a copied or replayed movement. */
  | 'duplicate-transaction'
  | 'trial-balance'
  /** A read model differs from the fold of the events it has applied. */
  | 'read-model'
  | 'seal';

/** One place where the ledger is not what its events say. `where` names it in words; the other fields are for machines. */
export type Difference = Readonly<{
  kind: DifferenceKind;
  where: string;
  detail: string;
  streamId?: string;
  revision?: string;
  position?: string;
  eventId?: string;
  table?: string;
  row?: string;
}>;

export const formatDifference = (d: Difference): string => `${d.kind}: ${d.where}: ${d.detail}`;

const at = (e: RecordedEvent): Pick<Difference, 'where' | 'streamId' | 'revision' | 'position' | 'eventId'> => ({
  where: placeOf(e),
  streamId: e.streamId,
  revision: e.revision.toString(),
  position: formatPosition(e.position),
  eventId: e.id,
});

const HOUSE: ReadonlySet<string> = new Set(HOUSE_ACCOUNTS);
const MOVEMENTS: ReadonlySet<string> = new Set(MOVEMENT_EVENT_TYPES);
const key = (...parts: readonly (string | number)[]): string => parts.join('\u0000');
const fmt = (c: CurrencyId, m: Minor): string => `${fromMinor(c, m)} ${c}`;

type Data = Readonly<Record<string, unknown>>;
const decimalField = (d: Data, field: string, c: CurrencyId): Minor | string => {
  const v = d[field];
  if (typeof v !== 'string') return `${field} is missing`;
  const m = parseDecimal(v, scaleOf(c));
  return isParseError(m) ? `${field} "${v}": ${m.message}` : m;
};

/** What the user's own legs must add up to, from the amounts the event states. */
const statedUserDelta = (type: string, d: Data, c: CurrencyId): Minor | string => {
  const plus = (field: string): Minor | string => decimalField(d, field, c);
  const minus = (field: string): Minor | string => {
    const v = plus(field);
    return typeof v === 'bigint' ? -v : v;
  };
  switch (type) {
    case 'DepositCompleted':
      // A deposit completed held credits house:deposits-held, not the player (docs/compliance.md).
      return d.held === true ? 0n : plus('amount');
    case 'DepositReleased':
    case 'BetRolledBack':
    case 'BetErrored':
    case 'WithdrawalRejected':
    case 'AdminTipCredited':
    case 'LeaderboardPrizeCredited':
    case 'AffiliateCommissionClaimed':
      return plus('amount');
    case 'BetPlaced':
    case 'WithdrawalRequested':
    case 'AdminTipDeducted':
      return minus('amount');
    case 'BetSettled':
      return plus('payout');
    case 'WithdrawalCompleted':
    case 'DepositReturned':
      return 0n;
    case 'BalanceSet': {
      const balance = plus('balance');
      const previous = plus('previousBalance');
      if (typeof balance !== 'bigint') return balance;
      return typeof previous === 'bigint' ? balance - previous : previous;
    }
    default:
      return `no rule for ${type}`;
  }
};

/** Per-stream revision bookkeeping: contiguous from 0 iff min = 0 and count = max + 1 (revisions are unique). */
type StreamStats = { count: bigint; min: bigint; max: bigint };

export type Expectation = Readonly<{
  projection: string;
  observe: (e: RecordedEvent, userId: number | undefined, legs: readonly StoredLeg[] | undefined) => void;
}>;

/** Folds every event once, in global order; each read-model expectation stops at its own checkpoint. */
export class LedgerFold {
  readonly differences: Difference[] = [];
  readonly streams = new Map<string, StreamStats>();
  readonly trial = new Map<CurrencyId, Minor>();
  private readonly running = new Map<string, { balance: Minor; offset: Minor }>();
  events = 0;

  constructor(
    private readonly expectations: readonly { cutoff: Position; expectation: Expectation }[],
    /** A fold that starts after a close: revisions are checked for holes within what it reads, not from 0. */
    private readonly window = false,
  ) {}

  /** Where a fold that starts after a close begins: each wallet's balance, and the accounts' sum per currency. */
  seed(
    balances: Iterable<readonly [userId: number, currencyId: CurrencyId, balance: Minor]>,
    trial: Iterable<readonly [CurrencyId, Minor]>,
  ): void {
    for (const [userId, c, balance] of balances) this.running.set(key(userId, c), { balance, offset: 0n });
    for (const [c, sum] of trial) this.trial.set(c, (this.trial.get(c) ?? 0n) + sum);
  }

  observe(e: RecordedEvent): void {
    this.events += 1;
    const s = this.streams.get(e.streamId);
    if (!s) this.streams.set(e.streamId, { count: 1n, min: e.revision, max: e.revision });
    else {
      s.count += 1n;
      if (e.revision < s.min) s.min = e.revision;
      if (e.revision > s.max) s.max = e.revision;
    }
    const read = readLegs(e);
    if (read && 'problem' in read) this.differences.push({ kind: 'postings-invalid', ...at(e), detail: read.problem });
    const legs = read && 'legs' in read ? read.legs : undefined;
    if (legs) {
      for (const [c, sum] of legSums(legs)) {
        if (sum !== 0n)
          this.differences.push({ kind: 'postings-unbalanced', ...at(e), detail: `postings sum to ${fmt(c, sum)}, not zero` });
        this.trial.set(c, (this.trial.get(c) ?? 0n) + sum);
      }
    }
    const userId = walletStreamUserId(e.streamId);
    const money = userId !== undefined && isWalletEventType(e.type) && MOVEMENTS.has(e.type);
    if (money && legs) this.checkMovement(e, userId, legs);
    for (const x of this.expectations) {
      if (comparePositions(e.position, x.cutoff) <= 0) x.expectation.observe(e, money ? userId : undefined, money ? legs : undefined);
    }
  }

  private checkMovement(e: RecordedEvent, userId: number, legs: readonly StoredLeg[]): void {
    const own = userAccount(userId);
    const d = e.data as Data;
    const stranger = legs.find((l) => l.account !== own && !HOUSE.has(l.account));
    if (stranger)
      this.differences.push({
        kind: 'postings-invalid',
        ...at(e),
        detail: `posting to ${stranger.account}, neither this wallet's account nor a house account`,
      });
    const c = d.currencyId;
    if (typeof c !== 'string' || !isCurrencyId(c)) {
      this.differences.push({ kind: 'postings-invalid', ...at(e), detail: `currencyId ${String(c)} is unknown` });
      return;
    }
    const foreign = legs.find((l) => l.currencyId !== c);
    if (foreign)
      this.differences.push({ kind: 'postings-invalid', ...at(e), detail: `a posting in ${foreign.currencyId} on a ${c} event` });
    const delta = legs.filter((l) => l.account === own && l.currencyId === c).reduce((sum, l) => sum + l.amount, 0n);
    const stated = statedUserDelta(e.type, d, c);
    if (typeof stated === 'string') this.differences.push({ kind: 'amount-mismatch', ...at(e), detail: stated });
    else if (stated !== delta) {
      this.differences.push({
        kind: 'amount-mismatch',
        ...at(e),
        detail: `the user's postings move ${fmt(c, delta)}, the event states ${fmt(c, stated)}`,
      });
    }
    const k = key(userId, c);
    const run = this.running.get(k) ?? { balance: 0n, offset: 0n };
    const balance = run.balance + delta;
    const after = decimalField(d, 'balanceAfter', c);
    if (typeof after === 'string') {
      this.differences.push({ kind: 'balance-after', ...at(e), detail: after });
      this.running.set(k, { balance, offset: run.offset });
      return;
    }
    // Reported where the gap between balanceAfter and the fold changes, not again on every later event that carries it.
    const offset = after - balance;
    if (offset !== run.offset) {
      this.differences.push({
        kind: 'balance-after',
        ...at(e),
        detail:
          offset === 0n
            ? `balanceAfter ${fmt(c, after)} agrees with the fold again, after a difference of ${fmt(c, run.offset)} on the events before`
            : `balanceAfter is ${fmt(c, after)}, the stream folds to ${fmt(c, balance)}` +
              `${run.offset === 0n ? '' : ` (a difference of ${fmt(c, run.offset)} before)`}` +
              '; later events keep this difference unless reported again',
      });
    }
    this.running.set(k, { balance, offset });
  }

  gappedStreams(): { streamId: string; stats: StreamStats }[] {
    return [...this.streams]
      .filter(([, s]) => (this.window ? s.count !== s.max - s.min + 1n : s.min !== 0n || s.count !== s.max + 1n))
      .map(([streamId, stats]) => ({ streamId, stats }));
  }

  trialDifferences(): Difference[] {
    return [...this.trial]
      .filter(([, sum]) => sum !== 0n)
      .map(([c, sum]) => ({
        kind: 'trial-balance' as const,
        where: `currency ${c}`,
        detail: `all accounts sum to ${fmt(c, sum)}, not zero`,
      }));
  }
}

/** wallet_balances: per user and currency, the balance folded from the user's legs (a row once the user had a leg in it). */
export const walletBalancesExpectation = () => {
  const rows = new Map<string, { userId: number; currencyId: CurrencyId; balance: Minor }>();
  const expectation: Expectation = {
    projection: 'wallet-balances',
    observe: (e, userId, legs) => {
      if (userId === undefined || !legs) return;
      const own = userAccount(userId);
      const c = (e.data as Data).currencyId;
      const mine = legs.filter((l) => l.account === own);
      if (mine.length === 0 || typeof c !== 'string' || !isCurrencyId(c)) return;
      for (const l of mine) {
        const k = key(userId, l.currencyId);
        const prev = rows.get(k) ?? { userId, currencyId: l.currencyId, balance: 0n };
        rows.set(k, { ...prev, balance: prev.balance + l.amount });
      }
      if (!rows.has(key(userId, c))) rows.set(key(userId, c), { userId, currencyId: c, balance: 0n });
    },
  };
  return { expectation, rows };
};

export const accountBalancesExpectation = () => {
  const rows = new Map<string, { account: string; currencyId: CurrencyId; balance: Minor }>();
  const expectation: Expectation = {
    projection: 'account-balances',
    observe: (_e, userId, legs) => {
      if (userId === undefined || !legs) return;
      for (const l of legs) {
        const k = key(l.account, l.currencyId);
        const prev = rows.get(k) ?? { account: l.account, currencyId: l.currencyId, balance: 0n };
        rows.set(k, { ...prev, balance: prev.balance + l.amount });
      }
    },
  };
  return { expectation, rows };
};

export type Tally = { count: bigint; sum: Minor };
const tally = (m: Map<string, Tally & { group: string; currencyId: CurrencyId }>, group: string, c: CurrencyId, amount: Minor): void => {
  const k = key(group, c);
  const prev = m.get(k) ?? { group, currencyId: c, count: 0n, sum: 0n };
  m.set(k, { ...prev, count: prev.count + 1n, sum: prev.sum + amount });
};

/** transactions: rows and the sum of their signed amounts per type and currency (one row per event with a user leg). */
export const transactionsExpectation = () => {
  const groups = new Map<string, Tally & { group: string; currencyId: CurrencyId }>();
  const expectation: Expectation = {
    projection: 'transactions',
    observe: (e, userId, legs) => {
      if (userId === undefined || !legs) return;
      const type = TRANSACTION_TYPES[e.type as keyof typeof TRANSACTION_TYPES];
      const c = (e.data as Data).currencyId;
      const own = userAccount(userId);
      const mine = legs.filter((l) => l.account === own);
      if (!type || mine.length === 0 || typeof c !== 'string' || !isCurrencyId(c)) return;
      tally(
        groups,
        type,
        c,
        mine.reduce((sum, l) => sum + l.amount, 0n),
      );
    },
  };
  return { expectation, groups };
};

export const adminTipsExpectation = () => {
  const groups = new Map<string, Tally & { group: string; currencyId: CurrencyId }>();
  const expectation: Expectation = {
    projection: 'admin-tips',
    observe: (e) => {
      if (walletStreamUserId(e.streamId) === undefined || (e.type !== 'AdminTipCredited' && e.type !== 'AdminTipDeducted')) return;
      const d = e.data as Data;
      const c = d.currencyId;
      if (typeof c !== 'string' || !isCurrencyId(c)) return;
      const amount = decimalField(d, 'amount', c);
      tally(groups, e.type === 'AdminTipCredited' ? 'ADD_BALANCE' : 'DEDUCT_BALANCE', c, typeof amount === 'bigint' ? amount : 0n);
    },
  };
  return { expectation, groups };
};

/** Status of each deposit / withdrawal / bet, as its projection sets it; a transition of an unknown id changes nothing. */
const STATUS_RULES = {
  deposits: {
    projection: 'deposits',
    id: 'depositId',
    create: { DepositRequested: 'PENDING' },
    move: { DepositConfirmed: 'CONFIRMED', DepositCompleted: 'COMPLETE', DepositFailed: 'FAILED' },
  },
  withdrawals: {
    projection: 'withdrawals',
    id: 'withdrawalId',
    create: { WithdrawalRequested: 'PENDING' },
    move: {
      WithdrawalApproved: 'CONFIRMED',
      WithdrawalRetried: 'CONFIRMED',
      WithdrawalRejected: 'DENIED',
      WithdrawalCompleted: 'COMPLETE',
      WithdrawalFailed: 'FAILED',
    },
  },
  bets: {
    projection: 'bets',
    id: 'betId',
    create: { BetPlaced: 'CREATED' },
    move: { BetSettled: 'SETTLED', BetRolledBack: 'ROLLBACK', BetErrored: 'ERROR' },
  },
} as const satisfies Record<string, { projection: string; id: string; create: Record<string, string>; move: Record<string, string> }>;
export type StatusTable = keyof typeof STATUS_RULES;
export const STATUS_TABLES = Object.keys(STATUS_RULES) as StatusTable[];

export const statusExpectation = (table: StatusTable) => {
  const rule: { projection: string; id: string; create: Readonly<Record<string, string>>; move: Readonly<Record<string, string>> } =
    STATUS_RULES[table];
  const statuses = new Map<string, string>();
  const expectation: Expectation = {
    projection: rule.projection,
    observe: (e) => {
      if (walletStreamUserId(e.streamId) === undefined) return;
      const id = (e.data as Data)[rule.id];
      if (typeof id !== 'string') return;
      const created = rule.create[e.type];
      const moved = rule.move[e.type];
      if (created) statuses.set(id, created);
      else if (moved && statuses.has(id)) statuses.set(id, moved);
    },
  };
  const counts = (): Map<string, bigint> => {
    const out = new Map<string, bigint>();
    for (const s of statuses.values()) out.set(s, (out.get(s) ?? 0n) + 1n);
    return out;
  };
  return { expectation, counts };
};
