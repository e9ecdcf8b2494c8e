import type { Minor } from '../../domain/money/money.js';
import type { StatementLine } from './statement.parse.js';
import type { Direction, StatementStatus } from './statement.providers.js';

/** A deposit or withdrawal of the ledger's read models, amount in minor units of its currency. */
export type LedgerItem = Readonly<{
  direction: Direction;
  id: string;
  /** What a statement line's external id may name: a deposit's externalId; a withdrawal's id or its operation key. */
  keys: readonly string[];
  txHash: string | null;
  currency: string;
  amount: Minor;
  status: string;
  effectiveAt: string;
  /** Its business time is in the run's range: only these are missing from a statement that lacks them. */
  inRange: boolean;
}>;

export const ITEM_KINDS = ['matched', 'amount_mismatch', 'status_mismatch', 'missing_in_ledger', 'missing_in_statement'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];
export const BREAK_KINDS = ITEM_KINDS.filter((k) => k !== 'matched');

export type ReconciledItem = Readonly<{
  kind: ItemKind;
  direction: Direction;
  matchedBy: 'externalId' | 'txHash' | null;
  line: StatementLine | null;
  ledger: readonly LedgerItem[];
  /** Statement amount minus the ledger's (both present and in one currency), in minor units. */
  difference: Minor | null;
  detail: string | null;
}>;

/** Per currency, per direction and kind: how many items and the amounts of each side (minor units). */
export type KindTotal = Readonly<{
  currency: string;
  direction: Direction;
  kind: ItemKind;
  items: number;
  statement: Minor;
  ledger: Minor;
}>;

export type Reconciliation = Readonly<{ items: ReconciledItem[]; totals: KindTotal[] }>;

/** Tolerance per currency in minor units; a currency not named must agree exactly. */
export type Tolerances = ReadonlyMap<string, Minor>;

/** A ledger status agrees with the statement's: settled with COMPLETE, in flight with PENDING, failed or refused with FAILED. */
const LEDGER_STATUS: Readonly<Record<string, StatementStatus>> = {
  COMPLETE: 'COMPLETE',
  PENDING: 'PENDING',
  CONFIRMED: 'PENDING',
  FAILED: 'FAILED',
  DENIED: 'FAILED',
};

const abs = (n: Minor): Minor => (n < 0n ? -n : n);

const push = <K, V>(map: Map<K, V[]>, key: K, value: V): void => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/** Compares a statement line with the ledger items it names. */
const compare = (line: StatementLine, ledger: readonly LedgerItem[], tolerances: Tolerances, by: 'externalId' | 'txHash') => {
  const base = { direction: line.direction, matchedBy: by, line, ledger };
  let sum = 0n;
  for (const l of ledger) {
    if (l.currency !== line.currency) {
      const currencies = [...new Set(ledger.map((x) => x.currency))].join(', ');
      return { ...base, kind: 'amount_mismatch', difference: null, detail: `currency differs: ledger ${currencies}` } as const;
    }
    sum += l.amount;
  }
  const difference = line.amount - sum;
  const many = ledger.length > 1 ? `${ledger.length} ledger items of one batch` : null;
  if (abs(difference) > (tolerances.get(line.currency) ?? 0n)) {
    return { ...base, kind: 'amount_mismatch', difference, detail: many } as const;
  }
  let agree = true;
  for (const l of ledger) if (LEDGER_STATUS[l.status] !== line.status) agree = false;
  if (!agree) {
    const disagreeing = ledger.filter((l) => LEDGER_STATUS[l.status] !== line.status);
    const statuses = [...new Set(disagreeing.map((l) => l.status))].join(', ');
    return { ...base, kind: 'status_mismatch', difference, detail: `statement ${line.status}, ledger ${statuses}` } as const;
  }
  return { ...base, kind: 'matched', difference, detail: many } as const;
};

/**
 * Matches a statement against the ledger (docs/reconciliation.md, "Rules"). Pass 1: a line's external id names one ledger
 * item of its direction. Pass 2, for the lines left: its transaction hash names one item, or several (a batched payout,
 * compared with their sum). Amounts agree within the currency's tolerance; statuses by LEDGER_STATUS. A ledger item is
 * matched once: a later line naming it again is missing in the ledger (a duplicate). Ledger items in the range that no
 * line names are missing in the statement, but for withdrawals an admin refused (DENIED: never sent to the provider).
 * Pure and linear in the number of lines and items.
 */
export const reconcile = (lines: readonly StatementLine[], ledger: readonly LedgerItem[], tolerances: Tolerances): Reconciliation => {
  // One map per direction, keyed by the key itself: no key string is built per item or line.
  const byKey = { deposit: new Map<string, LedgerItem>(), withdrawal: new Map<string, LedgerItem>() };
  const byHash = { deposit: new Map<string, LedgerItem[]>(), withdrawal: new Map<string, LedgerItem[]>() };
  for (const item of ledger) {
    const keys = byKey[item.direction];
    for (const key of item.keys) if (!keys.has(key)) keys.set(key, item);
    if (item.txHash !== null) push(byHash[item.direction], item.txHash, item);
  }
  const claimedBy = new Map<LedgerItem, number>();
  const found: (ReconciledItem | undefined)[] = new Array<ReconciledItem | undefined>(lines.length);
  const duplicateOf = (line: StatementLine, named: readonly LedgerItem[]): ReconciledItem => ({
    kind: 'missing_in_ledger',
    direction: line.direction,
    matchedBy: null,
    line,
    ledger: [],
    difference: null,
    detail: `names ledger ${named.map((l) => l.id).join(', ')}, already matched by line ${claimedBy.get(named[0]!)}`,
  });
  lines.forEach((line, i) => {
    const item = line.externalId === null ? undefined : byKey[line.direction].get(line.externalId);
    if (!item) return;
    if (claimedBy.has(item)) found[i] = duplicateOf(line, [item]);
    else {
      claimedBy.set(item, line.line);
      found[i] = compare(line, [item], tolerances, 'externalId');
    }
  });
  lines.forEach((line, i) => {
    if (found[i] || line.txHash === null) return;
    const named = byHash[line.direction].get(line.txHash);
    if (!named) return;
    const free = named.filter((l) => !claimedBy.has(l));
    if (free.length === 0) found[i] = duplicateOf(line, named);
    else {
      for (const l of free) claimedBy.set(l, line.line);
      found[i] = compare(line, free, tolerances, 'txHash');
    }
  });
  const items: ReconciledItem[] = lines.map(
    (line, i) =>
      found[i] ?? {
        kind: 'missing_in_ledger',
        direction: line.direction,
        matchedBy: null,
        line,
        ledger: [],
        difference: null,
        detail: null,
      },
  );
  const unnamed = ledger
    .filter((l) => l.inRange && !claimedBy.has(l) && !(l.direction === 'withdrawal' && l.status === 'DENIED'))
    .sort((a, b) => (a.effectiveAt < b.effectiveAt ? -1 : a.effectiveAt > b.effectiveAt ? 1 : a.id < b.id ? -1 : 1));
  for (const l of unnamed) {
    items.push({
      kind: 'missing_in_statement',
      direction: l.direction,
      matchedBy: null,
      line: null,
      ledger: [l],
      difference: null,
      detail: null,
    });
  }
  return { items, totals: totalsOf(items) };
};

type Total = { currency: string; direction: Direction; kind: ItemKind; items: number; statement: Minor; ledger: Minor };
const SLOTS = { deposit: ITEM_KINDS.map((k) => `deposit:${k}`), withdrawal: ITEM_KINDS.map((k) => `withdrawal:${k}`) };

/** Sums each item into its currency, direction and kind: the statement's side in its currency, the ledger's in theirs. */
export const totalsOf = (items: readonly ReconciledItem[]): KindTotal[] => {
  // Per direction and kind (ten slots), a map by currency: no key string is built per item.
  const totals = new Map<string, Map<string, Total>>();
  const all: Total[] = [];
  const at = (currency: string, direction: Direction, kind: ItemKind): Total => {
    const slot = SLOTS[direction][ITEM_KINDS.indexOf(kind)]!;
    let byCurrency = totals.get(slot);
    if (!byCurrency) totals.set(slot, (byCurrency = new Map()));
    let t = byCurrency.get(currency);
    if (!t) {
      byCurrency.set(currency, (t = { currency, direction, kind, items: 0, statement: 0n, ledger: 0n }));
      all.push(t);
    }
    return t;
  };
  for (const item of items) {
    const currency = item.line?.currency ?? item.ledger[0]!.currency;
    const t = at(currency, item.direction, item.kind);
    t.items += 1;
    if (item.line) t.statement += item.line.amount;
    for (const l of item.ledger) (l.currency === currency ? t : at(l.currency, item.direction, item.kind)).ledger += l.amount;
  }
  const order = (a: Total, b: Total): number =>
    a.currency !== b.currency
      ? a.currency < b.currency
        ? -1
        : 1
      : a.direction !== b.direction
        ? a.direction < b.direction
          ? -1
          : 1
        : ITEM_KINDS.indexOf(a.kind) - ITEM_KINDS.indexOf(b.kind);
  return all.sort(order);
};
