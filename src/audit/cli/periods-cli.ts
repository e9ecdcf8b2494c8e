import type pg from 'pg';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { EventStore } from '../../infra/event-store/event-store.port.js';
import { createPeriods } from '../../periods/close-period.use-case.js';
import { closedPeriod, closedPeriods, closingBalances, type Calendar } from '../../periods/periods.queries.js';

const ERRORS = {
  PeriodInvalid: 'is not a period of the calendar',
  PeriodAlreadyClosed: 'is closed already; a closed period never reopens',
  PeriodNotNext: 'is not the next period to close',
  PeriodNotEnded: 'has not ended yet',
} as const;

type Io = Readonly<{ out: (line: string) => void; err: (line: string) => void }>;

/** The calendar the books are cut by, as stored (the service sets it from LEDGER_TIME_ZONE and LEDGER_PERIOD). */
export const storedCalendar = async (pool: pg.Pool): Promise<Calendar> => {
  const { rows } = await pool.query<{ time_zone: string; unit: 'month' | 'day' }>(
    'SELECT time_zone, unit FROM ledger_calendar WHERE id = 1',
  );
  return rows[0] ? { timeZone: rows[0].time_zone, unit: rows[0].unit } : { timeZone: 'UTC', unit: 'month' };
};

/** `periods`, `close --period P --admin <id>` and `report --period P`: exit 0, or 1 when a close is refused. */
export const runPeriodsCommand = async (
  command: 'periods' | 'close' | 'report',
  o: Readonly<{ pool: pg.Pool; store: EventStore; period?: string; adminUserId?: number; json: boolean; sealKey?: Buffer }>,
  io: Io,
): Promise<number> => {
  const calendar = await storedCalendar(o.pool);
  const periods = createPeriods({ store: o.store, pool: o.pool, calendar, ...(o.sealKey ? { sealKey: o.sealKey } : {}) });
  if (command === 'periods') {
    const closed = await closedPeriods(o.pool);
    const next = (await periods.nextToClose()) ?? null;
    if (o.json) io.out(JSON.stringify({ ...calendar, nextToClose: next, closed }));
    else {
      io.out(`calendar: ${calendar.unit}s in ${calendar.timeZone}; next to close: ${next ?? '(nothing booked yet)'}`);
      for (const c of closed)
        io.out(`${c.period}  closed at ${String(c.report.closedAt)}  ${c.sealed ? 'sealed' : 'NOT SEALED'}  sha256 ${c.sha256 ?? '-'}`);
    }
    return 0;
  }
  if (command === 'close') {
    const closed = await periods.close(o.period!, o.adminUserId!);
    if (isLeft(closed)) {
      const e = closed.left;
      io.err(
        `period ${o.period} ${ERRORS[e._tag]}` +
          (e._tag === 'PeriodNotNext' ? `: the next is ${e.next}` : e._tag === 'PeriodNotEnded' ? `: it ends at ${e.end}` : ''),
      );
      return 1;
    }
    io.out(
      o.json
        ? JSON.stringify(closed.right)
        : `closed ${o.period}: ${closed.right.balances} closing balances, sha256 ${closed.right.sha256}` +
            (closed.right.sealed ? ', sealed' : ''),
    );
    return 0;
  }
  const closed = await closedPeriod(o.pool, o.period!);
  if (!closed) {
    io.err(`period ${o.period} is not closed`);
    return 1;
  }
  const { balances } = await closingBalances(o.pool, o.period!);
  if (o.json) io.out(JSON.stringify({ ...closed, balances }));
  else {
    const r = closed.report as {
      trialBalance: { currencyId: string; total: string }[];
      liability: Record<string, string>[];
      lateItems: unknown[];
    };
    io.out(
      `${closed.period} (${calendar.timeZone}), position ${closed.position}, ` +
        `${closed.sealed ? 'sealed' : 'NOT SEALED'}, sha256 ${closed.sha256 ?? '-'}`,
    );
    io.out(`trial balance: ${r.trialBalance.map((t) => `${t.total} ${t.currencyId}`).join(', ') || '(nothing)'}`);
    for (const l of r.liability)
      io.out(
        `owed to players ${l.currencyId}: ${l.total} ` +
          `(balances ${l.playerBalances}, withdrawals held ${l.withdrawalsHeld}, open bets ${l.openBetStakes})`,
      );
    io.out(`late items booked here: ${r.lateItems.length}`);
    for (const b of balances) io.out(`${b.account}\t${b.currencyId}\t${b.balance}`);
  }
  return 0;
};
