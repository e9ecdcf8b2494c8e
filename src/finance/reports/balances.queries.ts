import type pg from 'pg';
import { closedPeriod } from '../../periods/periods.queries.js';
import { lastClosed, type ReportScope } from './reports.scope.js';
import type { ReportRow, ReportTable } from './report.table.js';

type PeriodScope = Extract<ReportScope, { kind: 'period' }>;
type Db = Pick<pg.Pool, 'query'>;

/**
 * Every account's balance at the end of the period, as `bal(account, currency_id, amount)`: a closed period's closing
 * balances; an open one's, the last close's plus every movement booked after it up to this period (to date).
 */
const balancesCte = (closed: boolean): string =>
  closed
    ? `bal AS (SELECT account, currency_id, balance AS amount FROM period_balances WHERE period = $1 AND $2::text IS NULL)`
    : `bal AS (
         SELECT account, currency_id, balance AS amount FROM period_balances WHERE period = $2
         UNION ALL
         SELECT account, currency_id, amount FROM ledger_movements_daily WHERE period > coalesce($2, '') AND period <= $1
       )`;

/** Each currency's USD rate at the period's end: the last USD value stated for it on a business day before the end. */
const RATES_CTE = `rates AS (
  SELECT DISTINCT ON (currency_id) currency_id, usd_amount / amount AS rate
  FROM finance_rates_daily WHERE day < ($3::timestamptz AT TIME ZONE $4)::date ORDER BY currency_id, day DESC
)`;
const usd = (v: string): string => `CASE WHEN r.rate IS NULL THEN NULL ELSE trim_scale(round(${v} * r.rate, 2))::text END`;

const params = async (db: Db, s: PeriodScope): Promise<unknown[]> => [s.period, s.closed ? null : await lastClosed(db), s.end, s.timeZone];

/**
 * The trial balance per currency: the players' accounts together and every house account, their balances at the
 * period's end and in USD at its rate. Every currency's balances sum to zero (each movement's legs do).
 */
export const trialBalanceReport = async (db: Db, scope: PeriodScope): Promise<ReportTable & { totals: ReportRow[] }> => {
  const { rows } = await db.query<Record<string, string | null>>(
    `WITH ${balancesCte(scope.closed)}, per_account AS (
       SELECT account, currency_id, sum(amount) AS balance FROM bal GROUP BY account, currency_id
     ), ${RATES_CTE}
     SELECT a.currency_id, a.account, a.accounts::text, trim_scale(a.balance)::text AS balance,
       trim_scale(round(r.rate, 8))::text AS rate, ${usd('a.balance')} AS usd_balance
     FROM (
       SELECT currency_id, CASE WHEN account LIKE 'user:%' THEN 'players' ELSE account END AS account,
         count(*) FILTER (WHERE balance <> 0) AS accounts, sum(balance) AS balance
       FROM per_account GROUP BY 1, 2
     ) a LEFT JOIN rates r ON r.currency_id = a.currency_id
     ORDER BY a.currency_id, a.account <> 'players', a.account`,
    await params(db, scope),
  );
  const table = rows.map((r) => ({
    currencyId: r.currency_id,
    account: r.account,
    accounts: Number(r.accounts),
    balance: r.balance,
    usdRate: r.rate,
    usdBalance: r.usd_balance,
  }));
  return {
    columns: [
      { name: 'currencyId', text: true },
      { name: 'account', text: true },
      ...['accounts', 'balance', 'usdRate', 'usdBalance'].map((name) => ({ name })),
    ],
    rows: table,
    totals: await trialTotals(db, scope),
  };
};

/** A closed period's totals are its sealed report's; an open one's, its balances summed (both zero when the books balance). */
const trialTotals = async (db: Db, scope: PeriodScope): Promise<ReportRow[]> => {
  if (scope.closed) {
    const report = (await closedPeriod(db, scope.period))?.report as { trialBalance?: { currencyId: string; total: string }[] } | undefined;
    return (report?.trialBalance ?? []).map((t) => ({ currencyId: t.currencyId, total: t.total }));
  }
  const { rows } = await db.query<{ currency_id: string; total: string }>(
    `WITH ${balancesCte(false)} SELECT currency_id, trim_scale(sum(amount))::text AS total FROM bal GROUP BY currency_id ORDER BY 1`,
    [scope.period, await lastClosed(db)],
  );
  return rows.map((r) => ({ currencyId: r.currency_id, total: r.total }));
};

/**
 * What the casino owes its players per currency at the period's end: their balances, the withdrawals it holds for them
 * and the stakes of bets not yet settled (`total`, as the sealed close states it), and the deposits held over a deposit
 * limit (`depositsHeld`, from the closing balances): `totalOwed`, in USD at the period's rate.
 */
export const liabilityReport = async (db: Db, scope: PeriodScope): Promise<ReportTable> => {
  const parts = scope.closed
    ? `parts AS (
         SELECT l->>'currencyId' AS currency_id, (l->>'playerBalances')::numeric AS players, (l->>'withdrawalsHeld')::numeric AS held,
           (l->>'openBetStakes')::numeric AS stakes, 0 AS deposits
         FROM period_closes, jsonb_array_elements(report->'liability') l WHERE period = $1 AND $2::text IS NULL
         UNION ALL
         SELECT currency_id, 0, 0, 0, balance FROM period_balances WHERE period = $1 AND account = 'house:deposits-held'
       )`
    : `${balancesCte(false)}, parts AS (
         SELECT currency_id, sum(amount) FILTER (WHERE account LIKE 'user:%') AS players,
           sum(amount) FILTER (WHERE account = 'house:withdrawals-held') AS held, 0 AS stakes,
           sum(amount) FILTER (WHERE account = 'house:deposits-held') AS deposits
         FROM bal GROUP BY currency_id
         UNION ALL
         SELECT currency_id, 0, 0, sum(amount), 0 FROM ledger_open_bets GROUP BY currency_id
       )`;
  const { rows } = await db.query<Record<string, string | null>>(
    `WITH ${parts}, ${RATES_CTE}, l AS (
       SELECT currency_id, coalesce(sum(players), 0) AS players, coalesce(sum(held), 0) AS held, coalesce(sum(stakes), 0) AS stakes,
         coalesce(sum(deposits), 0) AS deposits
       FROM parts GROUP BY currency_id
     )
     SELECT l.currency_id, trim_scale(l.players)::text AS players, trim_scale(l.held)::text AS held,
       trim_scale(l.stakes)::text AS stakes, trim_scale(l.deposits)::text AS deposits,
       trim_scale(l.players + l.held + l.stakes)::text AS total, trim_scale(l.players + l.held + l.stakes + l.deposits)::text AS owed,
       trim_scale(round(r.rate, 8))::text AS rate, ${usd('l.players')} AS usd_players, ${usd('l.held')} AS usd_held,
       ${usd('l.stakes')} AS usd_stakes, ${usd('(l.players + l.held + l.stakes + l.deposits)')} AS usd_total
     FROM l LEFT JOIN rates r ON r.currency_id = l.currency_id ORDER BY l.currency_id`,
    await params(db, scope),
  );
  return {
    columns: [{ name: 'currencyId', text: true }, ...LIABILITY_NUMBERS.map((name) => ({ name }))],
    rows: rows.map((r) => ({
      currencyId: r.currency_id,
      playerBalances: r.players,
      withdrawalsHeld: r.held,
      openBetStakes: r.stakes,
      total: r.total,
      depositsHeld: r.deposits,
      totalOwed: r.owed,
      usdRate: r.rate,
      usdPlayerBalances: r.usd_players,
      usdWithdrawalsHeld: r.usd_held,
      usdOpenBetStakes: r.usd_stakes,
      usdTotal: r.usd_total,
    })),
  };
};

const LIABILITY_NUMBERS = [
  'playerBalances',
  'withdrawalsHeld',
  'openBetStakes',
  'total',
  'depositsHeld',
  'totalOwed',
  'usdRate',
  'usdPlayerBalances',
  'usdWithdrawalsHeld',
  'usdOpenBetStakes',
  'usdTotal',
];
