import { businessTimeOf, isWalletEventType, walletStreamUserId, type WalletEvent } from '../../domain/wallet/wallet.events.js';
import { userAccount } from '../../domain/ledger/posting.js';
import type { CurrencyId } from '../../domain/money/currency.js';
import { fromMinor, toMinor, usdFromMinor, usdToMinor, type DecimalString } from '../../domain/money/money.js';
import type { RecordedEvent } from '../../infra/event-store/event-store.port.js';
import type { Projection, Sql } from '../../projections/projection.js';
import { PERIODS_STREAM, type PeriodClosed } from '../../periods/periods.events.js';

/** After a CTE `r` of rows with `business_at`: their business day and booking period (the periods read model's rule). */
const BOOKED = `
c AS (SELECT time_zone, unit FROM ledger_calendar WHERE id = 1),
s AS (SELECT (SELECT last_closed FROM finance_period_state WHERE id = 1) AS last_closed),
b AS (
  SELECT r.*, (r.business_at AT TIME ZONE c.time_zone)::date AS day,
    CASE WHEN ledger_period_of(r.business_at, c.time_zone, c.unit) <= s.last_closed THEN ledger_next_period(s.last_closed)
         ELSE ledger_period_of(r.business_at, c.time_zone, c.unit) END AS period
  FROM r CROSS JOIN c CROSS JOIN s
)`;

const OPEN_BETS = `INSERT INTO finance_open_bets SELECT * FROM json_populate_recordset(NULL::finance_open_bets, $1::json)
ON CONFLICT DO NOTHING`;

/**
 * Rows summed per kind, game, currency and minute in the batch (a minute never straddles a day in any zone); a payout or
 * refund of a bet placed in an earlier batch comes alone and takes its game (and a refund its USD value) from the open bet.
 */
const GAMING = `
WITH r AS (
  SELECT m.kind, m.n, coalesce(m.game_id, o.game_id, 0) AS game_id, coalesce(m.game_name, o.game_name, 'unknown') AS game_name,
    coalesce(m.provider, o.provider, 'unknown') AS provider, m.currency_id, m.amount, coalesce(m.usd, o.usd_amount, 0) AS usd,
    m.business_at
  FROM json_to_recordset($1::json) AS m(kind text, n int, bet_id text, game_id int, game_name text, provider text, currency_id text,
    amount numeric, usd numeric, business_at timestamptz)
  LEFT JOIN finance_open_bets o ON m.game_id IS NULL AND o.bet_id = m.bet_id
), ${BOOKED}
INSERT INTO finance_gaming_daily AS t
SELECT period, day, game_id, currency_id, max(game_name), max(provider),
  coalesce(sum(n) FILTER (WHERE kind = 'stake'), 0),
  coalesce(sum(amount) FILTER (WHERE kind = 'stake'), 0), coalesce(sum(amount) FILTER (WHERE kind = 'payout'), 0),
  coalesce(sum(amount) FILTER (WHERE kind = 'refund'), 0), coalesce(sum(usd) FILTER (WHERE kind = 'stake'), 0),
  coalesce(sum(usd) FILTER (WHERE kind = 'payout'), 0), coalesce(sum(usd) FILTER (WHERE kind = 'refund'), 0)
FROM b GROUP BY period, day, game_id, currency_id
ON CONFLICT (period, day, game_id, currency_id) DO UPDATE SET
  bets = t.bets + excluded.bets, stakes = t.stakes + excluded.stakes, payouts = t.payouts + excluded.payouts,
  refunds = t.refunds + excluded.refunds, usd_stakes = t.usd_stakes + excluded.usd_stakes,
  usd_payouts = t.usd_payouts + excluded.usd_payouts, usd_refunds = t.usd_refunds + excluded.usd_refunds`;

const OPEN_PAYMENTS = `INSERT INTO finance_open_payments SELECT * FROM json_populate_recordset(NULL::finance_open_payments, $1::json)
ON CONFLICT DO NOTHING`;

/** A payment's later steps take its provider, network, currency and amounts from its request. */
const PAYMENTS = `
WITH r AS (
  SELECT m.direction, coalesce(o.provider, 'unknown') AS provider, coalesce(o.network, 'unknown') AS network,
    coalesce(m.currency_id, o.currency_id) AS currency_id, m.state, coalesce(m.amount, o.amount, 0) AS amount,
    coalesce(m.usd, o.usd_amount, 0) AS usd, m.business_at
  FROM json_to_recordset($1::json) AS m(direction text, id text, currency_id text, state text, amount numeric, usd numeric,
    business_at timestamptz)
  LEFT JOIN finance_open_payments o ON o.id = m.id
), ${BOOKED}
INSERT INTO finance_payments_daily AS t
SELECT period, day, direction, provider, network, currency_id, state, count(*), sum(amount), sum(usd)
FROM b GROUP BY period, day, direction, provider, network, currency_id, state
ON CONFLICT (period, day, direction, provider, network, currency_id, state) DO UPDATE SET
  count = t.count + excluded.count, amount = t.amount + excluded.amount, usd_amount = t.usd_amount + excluded.usd_amount`;

const ADJUSTMENTS = `
WITH r AS (
  SELECT * FROM json_to_recordset($1::json) AS m(kind text, tag text, admin_user_id bigint, currency_id text, amount numeric,
    usd numeric, business_at timestamptz)
), ${BOOKED}
INSERT INTO finance_adjustments_daily AS t
SELECT period, day, kind, tag, admin_user_id, currency_id, count(*), sum(amount), sum(usd)
FROM b GROUP BY period, day, kind, tag, admin_user_id, currency_id
ON CONFLICT (period, day, kind, tag, admin_user_id, currency_id) DO UPDATE SET
  count = t.count + excluded.count, amount = t.amount + excluded.amount, usd_amount = t.usd_amount + excluded.usd_amount`;

/** Keeps each currency's last stated USD value per business day (by business time). */
const RATES = `
WITH r AS (
  SELECT * FROM json_to_recordset($1::json) AS m(currency_id text, amount numeric, usd numeric, business_at timestamptz)
  WHERE m.amount > 0
), ${BOOKED}
INSERT INTO finance_rates_daily AS t (currency_id, day, business_at, amount, usd_amount)
SELECT DISTINCT ON (currency_id, day) currency_id, day, business_at, amount, usd FROM b ORDER BY currency_id, day, business_at DESC
ON CONFLICT (currency_id, day) DO UPDATE SET business_at = excluded.business_at, amount = excluded.amount,
  usd_amount = excluded.usd_amount WHERE excluded.business_at >= t.business_at`;

const ADVANCE = `INSERT INTO finance_period_state (id, last_closed) VALUES (1, $1)
ON CONFLICT (id) DO UPDATE SET last_closed = excluded.last_closed`;

type Game = Readonly<{ game_id: number; game_name: string; provider: string }>;
type GamingSum = Game & { kind: string; currency_id: CurrencyId; business_at: string; n: number; amount: bigint; usd: bigint };

/**
 * One batch's rows. Gaming is summed here, exactly (minor units): bets placed and ended in the same batch (the usual
 * case under load) never touch the open-bets table; only a bet still open at the batch's end is written there.
 */
class Batch {
  readonly placed = new Map<string, Game & { usd_amount: string }>();
  readonly gaming = new Map<string, GamingSum>();
  readonly lone: object[] = [];
  readonly endedBets: string[] = [];
  readonly openPayments: object[] = [];
  readonly payments: object[] = [];
  readonly endedPayments: string[] = [];
  readonly adjustments: object[] = [];
  readonly rates = new Map<string, { currency_id: string; amount: string; usd: string; business_at: string; t: number }>();

  addGaming(kind: string, game: Game, currencyId: CurrencyId, amount: string, usd: string, at: string, n: number): void {
    const t = new Date(at);
    t.setUTCSeconds(0, 0);
    const minute = t.toISOString();
    const key = `${kind}|${game.game_id}|${currencyId}|${minute}`;
    const sum = this.gaming.get(key) ?? { ...game, kind, currency_id: currencyId, business_at: minute, n: 0, amount: 0n, usd: 0n };
    sum.n += n;
    sum.amount += toMinor(currencyId, amount as DecimalString);
    sum.usd += usdToMinor(usd as DecimalString);
    this.gaming.set(key, sum);
  }

  /** A payout or refund: summed with its game when the bet was placed in this batch, else looked up by the statement. */
  endBet(kind: string, betId: string, currencyId: CurrencyId, amount: string, usd: string | undefined, at: string): void {
    const placed = this.placed.get(betId);
    if (placed) {
      this.placed.delete(betId);
      this.addGaming(kind, placed, currencyId, amount, usd ?? placed.usd_amount, at, 0);
      return;
    }
    this.lone.push({ kind, n: 0, bet_id: betId, currency_id: currencyId, amount, ...(usd === undefined ? {} : { usd }), business_at: at });
    this.endedBets.push(betId);
  }

  /** Keeps each currency's last stated rate per minute of the batch (the statement keeps the last per day). */
  rate(currencyId: string, amount: string, usd: string, at: string): void {
    const t = Date.parse(at);
    const key = `${currencyId}|${Math.floor(t / 60_000)}`;
    const known = this.rates.get(key);
    if (!known || known.t <= t) this.rates.set(key, { currency_id: currencyId, amount, usd, business_at: at, t });
  }

  statements(): Sql[] {
    const out: Sql[] = [];
    const json = (text: string, rows: readonly unknown[]): void => {
      if (rows.length > 0) out.push({ text, values: [JSON.stringify(rows)] });
    };
    json(
      OPEN_BETS,
      [...this.placed].map(([bet_id, g]) => ({ bet_id, ...g })),
    );
    const sums = [...this.gaming.values()].map((g) => ({
      ...g,
      amount: fromMinor(g.currency_id, g.amount),
      usd: usdFromMinor(g.usd),
    }));
    json(GAMING, [...sums, ...this.lone]);
    if (this.endedBets.length > 0)
      out.push({ text: 'DELETE FROM finance_open_bets WHERE bet_id = ANY($1::text[])', values: [this.endedBets] });
    json(OPEN_PAYMENTS, this.openPayments);
    json(PAYMENTS, this.payments);
    if (this.endedPayments.length > 0)
      out.push({ text: 'DELETE FROM finance_open_payments WHERE id = ANY($1::text[])', values: [this.endedPayments] });
    json(ADJUSTMENTS, this.adjustments);
    json(
      RATES,
      [...this.rates.values()].map(({ t: _t, ...r }) => r),
    );
    return out;
  }
}

/** The signed sum of the user's legs: what the movement did to the player's balance. */
const userLegs = (userId: number, postings: readonly { account: string; amount: string }[]): string[] =>
  postings.filter((p) => p.account === userAccount(userId)).map((p) => p.amount);

/** Adds one wallet event's rows to the batch (see docs/finance.md for what each report counts). */
const collect = (b: Batch, userId: number, event: WalletEvent): void => {
  const at = businessTimeOf(event.data);
  const adjustment = (kind: string, tag: string, admin: number, currencyId: string, amount: string, usd: string): void => {
    b.adjustments.push({ kind, tag, admin_user_id: admin, currency_id: currencyId, amount, usd, business_at: at });
    if (!amount.startsWith('-') && usd !== '0') b.rate(currencyId, amount, usd, at);
  };
  switch (event.type) {
    case 'BetPlaced': {
      const { betId, gameId, gameIdentity, currencyId, amount, usdAmount } = event.data;
      const game = { game_id: gameId, game_name: gameIdentity.name, provider: gameIdentity.provider.name };
      b.placed.set(betId, { ...game, usd_amount: usdAmount });
      b.addGaming('stake', game, currencyId, amount, usdAmount, at, 1);
      b.rate(currencyId, amount, usdAmount, at);
      return;
    }
    case 'BetSettled':
      b.endBet('payout', event.data.betId, event.data.currencyId, event.data.payout, event.data.usdPayout, at);
      return;
    case 'BetRolledBack':
    case 'BetErrored':
      b.endBet('refund', event.data.betId, event.data.currencyId, event.data.amount, undefined, at);
      return;
    case 'DepositRequested': {
      const id = `D:${event.data.depositId}`;
      const { providerId, networkId, currencyId, amount, usdAmount } = event.data;
      b.openPayments.push({ id, provider: providerId, network: networkId, currency_id: currencyId, amount, usd_amount: usdAmount });
      b.payments.push({ direction: 'DEPOSIT', id, currency_id: currencyId, state: 'REQUESTED', amount, usd: usdAmount, business_at: at });
      b.rate(currencyId, amount, usdAmount, at);
      return;
    }
    case 'DepositConfirmed':
    case 'DepositFailed':
      b.payments.push({
        direction: 'DEPOSIT',
        id: `D:${event.data.depositId}`,
        state: event.type === 'DepositConfirmed' ? 'CONFIRMED' : 'FAILED',
        business_at: at,
      });
      return;
    case 'DepositCompleted': {
      const id = `D:${event.data.depositId}`;
      const { currencyId, amount, usdAmount } = event.data;
      b.payments.push({ direction: 'DEPOSIT', id, currency_id: currencyId, state: 'COMPLETED', amount, usd: usdAmount, business_at: at });
      b.rate(currencyId, amount, usdAmount, at);
      // A held deposit stays open until an admin releases or returns it: that step takes its provider from here too.
      if (event.data.held !== true) b.endedPayments.push(id);
      return;
    }
    case 'DepositReleased':
    case 'DepositReturned': {
      const id = `D:${event.data.depositId}`;
      const { currencyId, amount, usdAmount } = event.data;
      const state = event.type === 'DepositReleased' ? 'RELEASED' : 'RETURNED';
      b.payments.push({ direction: 'DEPOSIT', id, currency_id: currencyId, state, amount, usd: usdAmount, business_at: at });
      b.endedPayments.push(id);
      return;
    }
    case 'WithdrawalRequested': {
      const id = `W:${event.data.withdrawalId}`;
      const { providerId, networkId, currencyId, amount, usdAmount } = event.data;
      b.openPayments.push({ id, provider: providerId, network: networkId, currency_id: currencyId, amount, usd_amount: usdAmount });
      b.payments.push({
        direction: 'WITHDRAWAL',
        id,
        currency_id: currencyId,
        state: 'REQUESTED',
        amount,
        usd: usdAmount,
        business_at: at,
      });
      b.rate(currencyId, amount, usdAmount, at);
      return;
    }
    case 'WithdrawalApproved':
    case 'WithdrawalRetried':
    case 'WithdrawalRejected':
    case 'WithdrawalCompleted':
    case 'WithdrawalFailed': {
      const id = `W:${event.data.withdrawalId}`;
      const state = WITHDRAWAL_STATES[event.type];
      b.payments.push({ direction: 'WITHDRAWAL', id, state, business_at: at });
      if (event.type === 'WithdrawalRejected' || event.type === 'WithdrawalCompleted') b.endedPayments.push(id);
      return;
    }
    case 'AdminTipCredited':
    case 'AdminTipDeducted': {
      const { currencyId, amount, usdAmount, tag, adminUserId } = event.data;
      const credit = event.type === 'AdminTipCredited';
      adjustment(
        credit ? 'TIP' : 'DEDUCTION',
        tag ?? 'OTHER',
        adminUserId,
        currencyId,
        credit ? amount : `-${amount}`,
        credit ? usdAmount : `-${usdAmount}`,
      );
      return;
    }
    case 'BalanceSet':
      for (const amount of userLegs(userId, event.data.postings))
        adjustment('BALANCE_SET', '', event.data.adminUserId, event.data.currencyId, amount, '0');
      return;
    case 'LeaderboardPrizeCredited':
      adjustment('LEADERBOARD_PRIZE', '', event.data.adminUserId, event.data.currencyId, event.data.amount, event.data.usdAmount);
      return;
    case 'AffiliateCommissionClaimed':
      adjustment('AFFILIATE_COMMISSION', '', 0, event.data.currencyId, event.data.amount, event.data.usdAmount);
      return;
    default: {
      const never: never = event;
      return never;
    }
  }
};

const WITHDRAWAL_STATES = {
  WithdrawalApproved: 'APPROVED',
  WithdrawalRetried: 'RETRIED',
  WithdrawalRejected: 'REJECTED',
  WithdrawalCompleted: 'COMPLETED',
  WithdrawalFailed: 'FAILED',
} as const;

export const FINANCE_REPORTS_TABLES = [
  'finance_gaming_daily',
  'finance_payments_daily',
  'finance_adjustments_daily',
  'finance_rates_daily',
  'finance_open_bets',
  'finance_open_payments',
  'finance_period_state',
] as const;

/**
 * The finance reports' read model: gaming, payments and adjustments summed per booking period and business day, the
 * last USD rate per currency and day. Each PeriodClosed moves its booking line, as the periods read model does.
 */
export const financeReportsProjection: Projection = {
  name: 'finance-reports',
  version: 1,
  handles: [
    'BetPlaced',
    'BetSettled',
    'BetRolledBack',
    'BetErrored',
    'DepositRequested',
    'DepositConfirmed',
    'DepositCompleted',
    'DepositFailed',
    'DepositReleased',
    'DepositReturned',
    'WithdrawalRequested',
    'WithdrawalApproved',
    'WithdrawalRetried',
    'WithdrawalRejected',
    'WithdrawalCompleted',
    'WithdrawalFailed',
    'AdminTipCredited',
    'AdminTipDeducted',
    'BalanceSet',
    'LeaderboardPrizeCredited',
    'AffiliateCommissionClaimed',
    'PeriodClosed',
  ],
  tables: FINANCE_REPORTS_TABLES,
  project(events: readonly RecordedEvent[]) {
    const out: Sql[] = [];
    let batch = new Batch();
    for (const e of events) {
      if (e.streamId === PERIODS_STREAM && e.type === 'PeriodClosed') {
        out.push(...batch.statements(), { text: ADVANCE, values: [(e as unknown as PeriodClosed).data.periodId] });
        batch = new Batch();
        continue;
      }
      const userId = walletStreamUserId(e.streamId);
      if (userId === undefined || !isWalletEventType(e.type)) continue;
      collect(batch, userId, { type: e.type, data: e.data } as WalletEvent);
    }
    out.push(...batch.statements());
    return out;
  },
};
