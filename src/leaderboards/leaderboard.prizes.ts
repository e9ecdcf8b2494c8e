import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { newId } from '../shared/ids.js';
import type { Ledger, LedgerError } from '../commands/ledger.types.js';
import { USD_SCALE, type CurrencyId } from '../domain/money/currency.js';
import { fromMinor, isParseError, parseDecimal, usdFromMinor, type Minor } from '../domain/money/money.js';
import { inTransaction } from '../infra/pg.js';
import type { LeaderboardError } from './leaderboard.errors.js';
import { prizesPayable, usdToCurrencyMinor, type LeaderboardStatus } from './leaderboard.rules.js';
import { usdMinorOf } from './leaderboards.views.js';

export type GivePrizeInput = Readonly<{
  adminUserId: number;
  leaderboardId: string;
  userId: number;
  currency: CurrencyId;
  usdAmount?: string | undefined;
  fullUsdAmount?: boolean | undefined;
  idempotencyKey?: string | undefined;
}>;
export type PrizePayment = Readonly<{
  operationKey: string;
  leaderboardUserId: string;
  currencyId: CurrencyId;
  amount: string;
  usdAmount: string;
  status: 'RESERVED' | 'PAID';
}>;
export type GivePrizeResult = Either<LeaderboardError | LedgerError, PrizePayment>;

type PaymentRow = Readonly<{
  operation_key: string;
  leaderboard_user_id: string;
  leaderboard_id: string;
  user_id: string;
  admin_user_id: string;
  currency_id: CurrencyId;
  amount: string;
  usd_amount: string;
  status: 'RESERVED' | 'PAID';
}>;

const paymentOf = (r: PaymentRow): PrizePayment => ({
  operationKey: r.operation_key,
  leaderboardUserId: r.leaderboard_user_id,
  currencyId: r.currency_id,
  amount: r.amount,
  usdAmount: usdFromMinor(usdMinorOf(r.usd_amount)),
  status: r.status,
});

/** Give-prize in two steps, so that no number of concurrent or retried calls pays more than the prize: 1. reserve: under SELECT ... */
export const createPrizes = ({ pool, ledger }: { pool: pg.Pool; ledger: Ledger }) => {
  const credit = async (p: PaymentRow): Promise<Either<LedgerError, PrizePayment>> => {
    const paid = await ledger.creditPrize({
      userId: Number(p.user_id),
      adminUserId: Number(p.admin_user_id),
      leaderboardId: p.leaderboard_id,
      leaderboardUserId: p.leaderboard_user_id,
      currencyId: p.currency_id,
      amount: p.amount,
      usdAmount: usdFromMinor(usdMinorOf(p.usd_amount)),
      operationKey: p.operation_key,
    });
    if (isLeft(paid)) return paid;
    await pool.query(`UPDATE leaderboard_prize_payments SET status = 'PAID', updated_at = now() WHERE operation_key = $1`, [
      p.operation_key,
    ]);
    return right(paymentOf({ ...p, status: 'PAID' }));
  };

  const release = (p: PaymentRow) =>
    inTransaction(pool, async (c) => {
      const { rowCount } = await c.query(`DELETE FROM leaderboard_prize_payments WHERE operation_key = $1 AND status = 'RESERVED'`, [
        p.operation_key,
      ]);
      if (rowCount === 1) {
        await c.query(
          `UPDATE leaderboard_users SET remaining_usd_prize = remaining_usd_prize + $2, is_prize_received = false, updated_at = now()
        WHERE id = $1`,
          [p.leaderboard_user_id, p.usd_amount],
        );
      }
    });

  const reserve = (input: GivePrizeInput, requested: Minor | 'full') =>
    inTransaction(pool, async (c): Promise<Either<LeaderboardError, PaymentRow>> => {
      const { leaderboardId, userId } = input;
      const { rows } = await c.query<{ id: string; status: LeaderboardStatus; is_winner: boolean; remaining_usd_prize: string }>(
        `SELECT lu.id, l.status, lu.is_winner, lu.remaining_usd_prize::text FROM leaderboard_users lu
         JOIN leaderboards l ON l.id = lu.leaderboard_id
       WHERE lu.leaderboard_id = $1 AND lu.user_id = $2 FOR UPDATE OF lu`,
        [leaderboardId, userId],
      );
      const lu = rows[0];
      if (!lu) {
        const exists = await c.query('SELECT 1 FROM leaderboards WHERE id = $1', [leaderboardId]);
        return left(
          exists.rowCount ? { _tag: 'LeaderboardUserNotFound', leaderboardId, userId } : { _tag: 'LeaderboardNotFound', leaderboardId },
        );
      }
      const operationKey = `lbp:${lu.id}:${input.idempotencyKey ?? newId()}`;
      const {
        rows: [previous],
      } = await c.query<PaymentRow>(
        `SELECT p.*, $2::text AS leaderboard_id, $3::bigint AS user_id FROM leaderboard_prize_payments p WHERE operation_key = $1`,
        [operationKey, leaderboardId, userId],
      );
      if (previous) {
        const same = previous.currency_id === input.currency && (requested === 'full' || usdMinorOf(previous.usd_amount) === requested);
        return same ? right(previous) : left({ _tag: 'PrizeIdempotencyConflict' });
      }
      if (!prizesPayable(lu.status)) return left({ _tag: 'LeaderboardNotSettled', leaderboardId, status: lu.status });
      if (!lu.is_winner) return left({ _tag: 'LeaderboardUserNotWinner', leaderboardId, userId });
      const remaining = usdMinorOf(lu.remaining_usd_prize);
      if (remaining === 0n) return left({ _tag: 'PrizeAlreadyReceived', leaderboardId, userId });
      const usd = requested === 'full' ? remaining : requested;
      if (usd > remaining)
        return left({ _tag: 'PrizeExceedsRemaining', remainingUsdPrize: usdFromMinor(remaining), usdAmount: usdFromMinor(usd) });
      const {
        rows: [rate],
      } = await c.query<{ usd_rate: string }>('SELECT usd_rate::text FROM currency_rates WHERE currency_id = $1', [input.currency]);
      const amount = rate ? usdToCurrencyMinor(input.currency, usd, rate.usd_rate) : undefined;
      if (amount === undefined) return left({ _tag: 'PrizeInvalid', field: 'currency', message: `${input.currency} has no USD rate` });
      if (amount === 0n) return left({ _tag: 'PrizeInvalid', field: 'usdAmount', message: `too small to pay in ${input.currency}` });
      const {
        rows: [payment],
      } = await c.query<PaymentRow>(
        `INSERT INTO leaderboard_prize_payments (operation_key, leaderboard_user_id, admin_user_id, currency_id, amount, usd_amount,
          status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'RESERVED', now(), now()) RETURNING *, $7::text AS leaderboard_id, $8::bigint AS user_id`,
        [
          operationKey,
          lu.id,
          input.adminUserId,
          input.currency,
          fromMinor(input.currency, amount),
          usdFromMinor(usd),
          leaderboardId,
          userId,
        ],
      );
      await c.query(
        `UPDATE leaderboard_users SET remaining_usd_prize = remaining_usd_prize - $2, is_prize_received = remaining_usd_prize - $2 = 0,
      updated_at = now() WHERE id = $1`,
        [lu.id, usdFromMinor(usd)],
      );
      return right(payment!);
    });

  return {
    give: async (input: GivePrizeInput): Promise<GivePrizeResult> => {
      let requested: Minor | 'full' = 'full';
      if (!input.fullUsdAmount) {
        const usd = input.usdAmount === undefined ? undefined : parseDecimal(input.usdAmount, USD_SCALE);
        if (usd === undefined)
          return left({ _tag: 'PrizeInvalid', field: 'usdAmount', message: 'usdAmount is required unless fullUsdAmount is true' });
        if (isParseError(usd)) return left({ _tag: 'PrizeInvalid', field: 'usdAmount', message: usd.message });
        if (usd <= 0n) return left({ _tag: 'PrizeInvalid', field: 'usdAmount', message: 'must be greater than zero' });
        requested = usd;
      }
      const reserved = await reserve(input, requested);
      if (isLeft(reserved)) return reserved;
      if (reserved.right.status === 'PAID') return right(paymentOf(reserved.right));
      const paid = await credit(reserved.right);
      if (isLeft(paid)) await release(reserved.right);
      return paid;
    },

    /** Credits payments left RESERVED by a crash, with their own operation keys (the ledger applies each once). */
    redriveReserved: async (olderThan: Date): Promise<number> => {
      const { rows } = await pool.query<PaymentRow>(
        `SELECT p.*, lu.leaderboard_id, lu.user_id FROM leaderboard_prize_payments p
         JOIN leaderboard_users lu ON lu.id = p.leaderboard_user_id
         WHERE p.status = 'RESERVED' AND p.created_at < $1 ORDER BY p.created_at LIMIT 100`,
        [olderThan],
      );
      let paid = 0;
      for (const row of rows) {
        if (isLeft(await credit(row))) await release(row);
        else paid += 1;
      }
      return paid;
    },
  };
};
export type Prizes = ReturnType<typeof createPrizes>;
