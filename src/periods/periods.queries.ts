import type pg from 'pg';
import type { PeriodId } from './periods.events.js';

export type Calendar = Readonly<{ timeZone: string; unit: 'month' | 'day' }>;

/** [start, end) of a period in the calendar's zone, as instants: PostgreSQL's zone rules, not ours. */
export const periodBounds = async (
  db: Pick<pg.Pool, 'query'>,
  calendar: Calendar,
  id: PeriodId,
): Promise<{ start: string; end: string }> => {
  const first = calendar.unit === 'month' ? `${id}-01` : id;
  const { rows } = await db.query<{ start: Date; end: Date }>(
    `SELECT (to_date($1, 'YYYY-MM-DD')::timestamp AT TIME ZONE $2) AS start,
            ((to_date($1, 'YYYY-MM-DD') + CASE $3 WHEN 'month' THEN interval '1 month' ELSE interval '1 day' END)::timestamp
              AT TIME ZONE $2) AS end`,
    [first, calendar.timeZone, calendar.unit],
  );
  return { start: rows[0]!.start.toISOString(), end: rows[0]!.end.toISOString() };
};

/** The period an instant falls in. */
export const periodOf = async (db: Pick<pg.Pool, 'query'>, calendar: Calendar, at: Date): Promise<PeriodId> =>
  (
    await db.query<{ p: string }>('SELECT ledger_period_of($1::timestamptz, $2, $3) AS p', [
      at.toISOString(),
      calendar.timeZone,
      calendar.unit,
    ])
  ).rows[0]!.p;

/** The earliest period anything is booked in (the first one to close), or undefined on an empty ledger. */
export const firstBookedPeriod = async (db: Pick<pg.Pool, 'query'>): Promise<PeriodId | undefined> =>
  (await db.query<{ p: string | null }>('SELECT min(period) AS p FROM ledger_movements_daily')).rows[0]?.p ?? undefined;

export type ClosedPeriod = Readonly<{
  period: PeriodId;
  position: string;
  report: Readonly<Record<string, unknown>>;
  sha256: string | null;
  sealed: boolean;
  writtenAt: string;
}>;

const closedRow = (r: {
  period: string;
  position: string;
  report: Record<string, unknown>;
  sha256: string | null;
  mac: Buffer | null;
  written_at: Date;
}): ClosedPeriod => ({
  period: r.period,
  position: r.position,
  report: r.report,
  sha256: r.sha256,
  sealed: r.mac !== null,
  writtenAt: r.written_at.toISOString(),
});

export const closedPeriods = async (db: Pick<pg.Pool, 'query'>): Promise<ClosedPeriod[]> =>
  (
    await db.query<Parameters<typeof closedRow>[0]>(
      'SELECT period, position, report, sha256, mac, written_at FROM period_closes ORDER BY period',
    )
  ).rows.map(closedRow);

export const closedPeriod = async (db: Pick<pg.Pool, 'query'>, id: PeriodId): Promise<ClosedPeriod | undefined> => {
  const { rows } = await db.query<Parameters<typeof closedRow>[0]>(
    'SELECT period, position, report, sha256, mac, written_at FROM period_closes WHERE period = $1',
    [id],
  );
  return rows[0] && closedRow(rows[0]);
};

export type ClosingBalance = Readonly<{ account: string; currencyId: string; balance: string }>;

/** How many closing balances a closed period has (one per account and currency). */
export const closingBalanceCount = async (db: Pick<pg.Pool, 'query'>, id: PeriodId): Promise<number> =>
  Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM period_balances WHERE period = $1', [id])).rows[0]!.n);

/** Every account's opening (the previous close's, 0 for the first) and closing balance of a closed period, by account. */
export const openingAndClosing = async (
  db: Pick<pg.Pool, 'query'>,
  id: PeriodId,
  previous: PeriodId | null,
): Promise<{ account: string; currencyId: string; opening: string; closing: string }[]> =>
  (
    await db.query<{ account: string; currency_id: string; opening: string; closing: string }>(
      `SELECT coalesce(c.account, o.account) AS account, coalesce(c.currency_id, o.currency_id) AS currency_id,
         coalesce(o.balance, 0)::text AS opening, coalesce(c.balance, 0)::text AS closing
       FROM (SELECT * FROM period_balances WHERE period = $1) c
       FULL JOIN (SELECT * FROM period_balances WHERE period = $2) o ON o.account = c.account AND o.currency_id = c.currency_id
       ORDER BY 1, 2`,
      [id, previous],
    )
  ).rows.map((r) => ({ account: r.account, currencyId: r.currency_id, opening: r.opening, closing: r.closing }));
export const closingBalances = async (
  db: Pick<pg.Pool, 'query'>,
  id: PeriodId,
  page?: Readonly<{ limit: number; offset: number }>,
): Promise<{ total: number; balances: ClosingBalance[] }> => {
  const [{ rows }, total] = await Promise.all([
    db.query<{ account: string; currency_id: string; balance: string }>(
      `SELECT account, currency_id, balance::text AS balance FROM period_balances WHERE period = $1 ORDER BY account, currency_id
       ${page ? 'LIMIT $2 OFFSET $3' : ''}`,
      page ? [id, page.limit, page.offset] : [id],
    ),
    closingBalanceCount(db, id),
  ]);
  return { total, balances: rows.map((r) => ({ account: r.account, currencyId: r.currency_id, balance: r.balance })) };
};

/**
 * Makes the stored calendar the configured one. Once a period is closed it cannot change (the service refuses to
 * start, naming both); before, a change re-books every movement: the periods read model is replayed from the start.
 */
export const ensureCalendar = async (
  pool: pg.Pool,
  calendar: Calendar,
  /** Read models that book by the calendar besides the periods one: replayed with it. */
  dependents: readonly Readonly<{ name: string; tables: readonly string[] }>[] = [],
): Promise<'same' | 'changed'> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT now() AT TIME ZONE $1', [calendar.timeZone]); // PostgreSQL knows the zone too
    const { rows } = await client.query<{ time_zone: string; unit: string }>(
      'SELECT time_zone, unit FROM ledger_calendar WHERE id = 1 FOR UPDATE',
    );
    const stored = rows[0];
    if (stored && stored.time_zone === calendar.timeZone && stored.unit === calendar.unit) {
      await client.query('COMMIT');
      return 'same';
    }
    const { rows: closed } = await client.query<{ period: string }>('SELECT period FROM period_closes ORDER BY period DESC LIMIT 1');
    if (closed[0]) {
      throw new Error(
        `LEDGER_TIME_ZONE/LEDGER_PERIOD ${calendar.timeZone}/${calendar.unit} differ from the calendar the books were closed by ` +
          `(${stored?.time_zone}/${stored?.unit}, last closed ${closed[0].period}): a closed period's calendar never changes`,
      );
    }
    await client.query(
      `INSERT INTO ledger_calendar (id, time_zone, unit) VALUES (1, $1, $2) ON CONFLICT (id) DO UPDATE SET time_zone = $1, unit = $2`,
      [calendar.timeZone, calendar.unit],
    );
    const tables = [
      'ledger_movements_daily',
      'ledger_open_bets',
      'ledger_late_items',
      'ledger_period_state',
      ...dependents.flatMap((d) => d.tables),
    ];
    await client.query(`TRUNCATE ${tables.join(', ')}`);
    await client.query('DELETE FROM projection_checkpoints WHERE name = ANY($1::text[])', [['periods', ...dependents.map((d) => d.name)]]);
    await client.query('COMMIT');
    return 'changed';
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};
