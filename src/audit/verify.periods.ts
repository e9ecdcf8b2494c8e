import type pg from 'pg';
import { isCurrencyId, scaleOf } from '../domain/money/currency.js';
import { fromMinor, isParseError, parseDecimal, type Minor } from '../domain/money/money.js';
import { businessTimeOf, hasMovement, isWalletEventType, walletStreamUserId, type WalletEvent } from '../domain/wallet/wallet.events.js';
import {
  comparePositions,
  parsePosition,
  START,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../infra/event-store/event-store.port.js';

import { nextPeriod } from '../periods/periods.events.js';
import { closingBalances } from '../periods/periods.queries.js';
import { canonical, closeDigest, closeMacMatches } from '../periods/periods.seal.js';
import type { Difference } from './verify.fold.js';
import { sealMac, sealMatches } from './seal.hash.js';

type Leg = Readonly<{ account: string; currencyId: string; amount: string; kind: string; period: string }>;
/** What a verified period hands the next: legs booked in a later period (dated ahead), and the bets still open. */
type Carry = Readonly<{ legs: Leg[]; openBets: [string, string, string][] }>;
type Close = { period: string; position: string; report: Record<string, unknown>; sha256: string | null; mac: Buffer | null };
type Check = { period: string; digest: string; carry: Carry; mac: Buffer };

const checkMac = (key: Buffer, period: string, digest: string, carry: Carry): Buffer =>
  sealMac(key, 'period-check', period, digest, canonical(carry));

/** The period of an instant in the calendar's zone, by Intl's zone rules (the same cut as SQL's ledger_period_of). */
const periodIn = (timeZone: string, unit: string) => {
  const format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return (at: string): string => {
    const parts = Object.fromEntries(format.formatToParts(new Date(at)).map((p) => [p.type, p.value]));
    return unit === 'month' ? `${parts.year}-${parts.month}` : `${parts.year}-${parts.month}-${parts.day}`;
  };
};

const minorOf = (currencyId: string, value: string): Minor | undefined => {
  if (!isCurrencyId(currencyId)) return undefined;
  const m = parseDecimal(value, scaleOf(currencyId));
  return isParseError(m) ? undefined : m;
};
const text = (currencyId: string, m: Minor): string => (isCurrencyId(currencyId) ? fromMinor(currencyId, m) : m.toString());

const add = (m: Map<string, Minor>, k: string, v: Minor): void => {
  m.set(k, (m.get(k) ?? 0n) + v);
};

const differenceAt = (period: string, detail: string): Difference => ({ kind: 'period', where: `period ${period}`, detail });

/**
 * Each closed period's report re-derived from its events: the previous closing balances plus every leg booked in the
 * period (by the booking rule: a leg recorded after its period closed goes to the first open one), against the stored
 * closing balances, trial balance, liability, movements and late items; and its digest and seal. With the seal key a
 * period found right is kept in `period_checks` (MACed, with what it hands the next period), so each closed period is
 * read once: a run costs the periods closed since the last run. Without the key every closed period is read again.
 */
/** Where the last closed period left the ledger: its closing balances and what it hands the open period. */
export type LastClose = Readonly<{ period: string; position: Position; balances: ReadonlyMap<string, Minor>; carry: Carry }>;

export const verifyPeriods = async (o: Readonly<{ pool: pg.Pool; store: EventStore; key: Buffer | undefined }>): Promise<Difference[]> =>
  (await verifyClosedPeriods(o)).differences;

export const verifyClosedPeriods = async (
  o: Readonly<{ pool: pg.Pool; store: EventStore; key: Buffer | undefined }>,
): Promise<{ differences: Difference[]; last: LastClose | undefined }> => {
  const differences: Difference[] = [];
  const { rows: closes } = await o.pool.query<Close>('SELECT period, position, report, sha256, mac FROM period_closes ORDER BY period');
  const { rows: checkRows } = o.key
    ? await o.pool.query<Check>('SELECT period, digest, carry, mac FROM period_checks')
    : { rows: [] as Check[] };
  const checks = new Map(checkRows.map((c) => [c.period, c]));
  let prev: { period: string; position: Position; balances: Map<string, Minor>; carry: Carry } | undefined;

  for (const close of closes) {
    const { balances: stored } = await closingBalances(o.pool, close.period);
    const digest = closeDigest(close.report, stored);
    if (close.sha256 !== digest)
      differences.push(differenceAt(close.period, 'the report or a closing balance was edited: its digest does not match'));
    else if (o.key && (!close.mac || !closeMacMatches(o.key, close.period, digest, close.mac)))
      differences.push(differenceAt(close.period, 'the seal of the report does not match (edited, or another seal key)'));
    const storedBalances = new Map<string, Minor>();
    for (const b of stored) {
      const m = minorOf(b.currencyId, b.balance);
      if (m !== undefined) storedBalances.set(`${b.account}|${b.currencyId}`, m);
    }
    const position = parsePosition(close.position);
    const check = checks.get(close.period);
    const trusted =
      o.key !== undefined &&
      check !== undefined &&
      check.digest === digest &&
      sealMatches(o.key, check.mac, 'period-check', check.period, check.digest, canonical(check.carry));
    if (trusted) {
      prev = { period: close.period, position, balances: storedBalances, carry: check.carry };
      continue;
    }

    const report = close.report as { timeZone: string; unit: string; previous: string | null };
    const periodOf = periodIn(report.timeZone, report.unit);
    const expected = new Map(prev?.balances ?? []);
    const openBets = new Map((prev?.carry.openBets ?? []).map(([id, c, a]) => [id, [c, a] as const]));
    const carried: Leg[] = [];
    const movements = new Map<string, { players: Minor; house: Minor; legs: number; currencyId: string; kind: string }>();
    const late: string[] = [];
    const book = (leg: Leg): void => {
      const m = minorOf(leg.currencyId, leg.amount);
      if (m === undefined) return;
      add(expected, `${leg.account}|${leg.currencyId}`, m);
      const k = `${leg.kind}|${leg.currencyId}`;
      const mv = movements.get(k) ?? { players: 0n, house: 0n, legs: 0, currencyId: leg.currencyId, kind: leg.kind };
      if (leg.account.startsWith('user:')) mv.players += m;
      else mv.house += m;
      mv.legs += 1;
      movements.set(k, mv);
    };
    for (const leg of prev?.carry.legs ?? []) (leg.period === close.period ? book : (l: Leg) => carried.push(l))(leg);

    const apply = (e: RecordedEvent): void => {
      if (walletStreamUserId(e.streamId) === undefined || !isWalletEventType(e.type)) return;
      const event = { type: e.type, data: e.data } as WalletEvent;
      if (event.type === 'BetPlaced') openBets.set(event.data.betId, [event.data.currencyId, event.data.amount]);
      if (event.type === 'BetSettled' || event.type === 'BetRolledBack' || event.type === 'BetErrored') openBets.delete(event.data.betId);
      if (!hasMovement(event)) return;
      const business = periodOf(businessTimeOf(event.data));
      const booked = prev !== undefined && business <= prev.period ? nextPeriod(prev.period) : business;
      if (booked !== business) late.push(e.id);
      for (const p of event.data.postings) {
        const leg = { account: p.account, currencyId: p.currencyId, amount: p.amount, kind: event.type, period: booked };
        if (booked === close.period) book(leg);
        else carried.push(leg);
      }
    };
    for (let after = prev?.position ?? START; ;) {
      const batch = await o.store.readAll({ after, maxCount: 5000 });
      const within = batch.filter((e) => comparePositions(e.position, position) < 0);
      within.forEach(apply);
      if (within.length < batch.length || batch.length === 0) break;
      after = batch.at(-1)!.position;
    }

    const nonZero = (m: Map<string, Minor>) => new Map([...m].filter(([, v]) => v !== 0n));
    const wrong = [...new Set([...nonZero(expected).keys(), ...nonZero(storedBalances).keys()])].filter(
      (k) => (expected.get(k) ?? 0n) !== (storedBalances.get(k) ?? 0n),
    );
    for (const k of wrong.slice(0, 20)) {
      const [account, currencyId] = k.split('|') as [string, string];
      differences.push(
        differenceAt(
          close.period,
          `closing balance of ${account} ${currencyId}: ${text(currencyId, storedBalances.get(k) ?? 0n)}, ` +
            `the events give ${text(currencyId, expected.get(k) ?? 0n)}`,
        ),
      );
    }
    const byCurrency = (pick: (account: string) => boolean): Map<string, Minor> => {
      const out = new Map<string, Minor>();
      for (const [k, v] of expected) {
        const [account, currencyId] = k.split('|') as [string, string];
        if (pick(account)) add(out, currencyId, v);
      }
      return out;
    };
    const players = byCurrency((a) => a.startsWith('user:'));
    const held = byCurrency((a) => a === 'house:withdrawals-held');
    const stakes = new Map<string, Minor>();
    for (const [c, a] of openBets.values()) {
      const m = minorOf(c, a);
      if (m !== undefined) add(stakes, c, m);
    }
    const currencies = [...new Set([...players.keys(), ...held.keys(), ...stakes.keys()])].sort();
    const liability = currencies.map((c) => {
      const [p, h, s] = [players.get(c) ?? 0n, held.get(c) ?? 0n, stakes.get(c) ?? 0n];
      return {
        currencyId: c,
        playerBalances: text(c, p),
        withdrawalsHeld: text(c, h),
        openBetStakes: text(c, s),
        total: text(c, p + h + s),
      };
    });
    const derived = {
      trialBalance: [...byCurrency(() => true)]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([c, v]) => ({ currencyId: c, total: text(c, v) })),
      liability,
      movements: [...movements.values()]
        .sort((a, b) => (a.kind + a.currencyId < b.kind + b.currencyId ? -1 : 1))
        .map((m) => ({
          kind: m.kind,
          currencyId: m.currencyId,
          players: text(m.currencyId, m.players),
          house: text(m.currencyId, m.house),
          legs: m.legs,
        })),
      lateItems: late.sort(),
    };
    const r = close.report as { trialBalance: unknown[]; liability: unknown[]; movements: unknown[]; lateItems: { eventId: string }[] };
    const reported = {
      trialBalance: r.trialBalance,
      liability: r.liability,
      movements: r.movements,
      lateItems: r.lateItems.map((l) => l.eventId).sort(),
    };
    // As sets of canonical rows: PostgreSQL's jsonb orders keys its own way, and its collation sorts rows its own way.
    const rows = (xs: readonly unknown[]): string => canonical(xs.map((x) => canonical(x)).sort());
    for (const field of ['trialBalance', 'liability', 'movements', 'lateItems'] as const) {
      if (rows(reported[field]) !== rows(derived[field]))
        differences.push(
          differenceAt(
            close.period,
            `${field} reads ${JSON.stringify(reported[field])}; the events give ${JSON.stringify(derived[field])}`,
          ),
        );
    }
    const carry: Carry = { legs: carried, openBets: [...openBets].map(([id, [c, a]]) => [id, c, a]) };
    if (o.key && !differences.some((d) => d.where === `period ${close.period}`)) {
      await o.pool.query(
        `INSERT INTO period_checks (period, digest, carry, mac) VALUES ($1, $2, $3::jsonb, $4)
         ON CONFLICT (period) DO UPDATE SET digest = excluded.digest, carry = excluded.carry, mac = excluded.mac, checked_at = now()`,
        [close.period, digest, JSON.stringify(carry), checkMac(o.key, close.period, digest, carry)],
      );
    }
    prev = { period: close.period, position, balances: storedBalances, carry };
  }
  return { differences, last: prev };
};
