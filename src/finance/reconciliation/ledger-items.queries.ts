import type pg from 'pg';
import { isCurrencyId, scaleOf } from '../../domain/money/currency.js';
import { isParseError, parseDecimal } from '../../domain/money/money.js';
import type { LedgerItem } from './reconcile.js';
import type { StatementLine } from './statement.parse.js';

type Row = {
  direction: 'deposit' | 'withdrawal';
  id: string;
  keys: string[];
  tx_hash: string | null;
  currency_id: string;
  amount: string;
  status: string;
  effective_at: Date;
  in_range: boolean;
};

/** The largest scale the read models hold an amount at; a currency the ledger does not know is read at it. */
const WIDEST_SCALE = 18;

const minorOf = (currency: string, amount: string): bigint => {
  const parsed = parseDecimal(amount, isCurrencyId(currency) ? scaleOf(currency) : WIDEST_SCALE);
  if (isParseError(parsed)) throw new Error(`the read models hold ${currency} ${amount}: ${parsed.message}`);
  return parsed;
};

/**
 * One set-based read of what a run compares the statement with: the provider's deposits and withdrawals whose business
 * time is in [from, to), and those outside it that a line names (by external id or transaction hash), so that an item
 * booked just across the range's edge matches instead of showing as two breaks.
 */
export const ledgerItemsFor = async (
  db: Pick<pg.ClientBase, 'query'>,
  providerId: string,
  from: string,
  to: string,
  lines: readonly StatementLine[],
): Promise<LedgerItem[]> => {
  const keys = (direction: 'deposit' | 'withdrawal', of: (l: StatementLine) => string | null): string[] => [
    ...new Set(lines.filter((l) => l.direction === direction).flatMap((l) => of(l) ?? [])),
  ];
  const { rows } = await db.query<Row>(
    `WITH range AS (SELECT $2::timestamptz AS f, $3::timestamptz AS t)
     SELECT 'deposit' AS direction, d.id, ARRAY[d.external_id] AS keys, d.tx_hash, d.currency_id, trim_scale(d.amount)::text AS amount,
            d.status, d.effective_at, (d.effective_at >= r.f AND d.effective_at < r.t) AS in_range
     FROM deposits d, range r
     WHERE d.provider_id = $1
       AND ((d.effective_at >= r.f AND d.effective_at < r.t) OR d.external_id = ANY($4::text[]) OR d.tx_hash = ANY($5::text[]))
     UNION ALL
     SELECT 'withdrawal', w.id, ARRAY[w.id, w.operation_key], w.tx_hash, w.currency_id, trim_scale(w.amount)::text,
            w.status, w.effective_at, (w.effective_at >= r.f AND w.effective_at < r.t)
     FROM withdrawals w, range r
     WHERE w.provider_id = $1
       AND ((w.effective_at >= r.f AND w.effective_at < r.t)
            OR w.id = ANY($6::text[]) OR w.operation_key = ANY($6::text[]) OR w.tx_hash = ANY($7::text[]))`,
    [
      providerId,
      from,
      to,
      keys('deposit', (l) => l.externalId),
      keys('deposit', (l) => l.txHash),
      keys('withdrawal', (l) => l.externalId),
      keys('withdrawal', (l) => l.txHash),
    ],
  );
  return rows.map((r) => ({
    direction: r.direction,
    id: r.id,
    keys: r.keys,
    txHash: r.tx_hash,
    currency: r.currency_id,
    amount: minorOf(r.currency_id, r.amount),
    status: r.status,
    effectiveAt: r.effective_at.toISOString(),
    inRange: r.in_range,
  }));
};
