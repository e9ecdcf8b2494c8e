import type pg from 'pg';
import { isCurrencyId, scaleOf } from '../../domain/money/currency.js';
import { isParseError, parseDecimal } from '../../domain/money/money.js';
import type { LedgerItem } from './reconcile.js';
import type { StatementLine } from './statement.parse.js';

type Row = {
  direction: 'deposit' | 'withdrawal';
  id: string;
  key: string;
  tx_hash: string | null;
  currency_id: string;
  amount: string;
  status: string;
  effective_at: string;
};

/** The largest scale the read models hold an amount at; a currency the ledger does not know is read at it. */
const WIDEST_SCALE = 18;

const minorOf = (currency: string, amount: string): bigint => {
  const parsed = parseDecimal(amount, isCurrencyId(currency) ? scaleOf(currency) : WIDEST_SCALE);
  if (isParseError(parsed)) throw new Error(`the read models hold ${currency} ${amount}: ${parsed.message}`);
  return parsed;
};

/** The business time as ISO 8601 text (read as is: no Date per row), millisecond precision as the ledger writes it. */
const ISO = `to_char(effective_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS effective_at`;
const COLUMNS = {
  deposit: `'deposit' AS direction, id, external_id AS key, tx_hash, currency_id, trim_scale(amount)::text AS amount, status, ${ISO}`,
  withdrawal: `'withdrawal' AS direction, id, operation_key AS key, tx_hash, currency_id, trim_scale(amount)::text AS amount, status,
    ${ISO}`,
};

const itemOf = (r: Row, inRange: boolean): LedgerItem => ({
  direction: r.direction,
  id: r.id,
  keys: r.direction === 'deposit' ? [r.key] : [r.id, r.key],
  txHash: r.tx_hash,
  currency: r.currency_id,
  amount: minorOf(r.currency_id, r.amount),
  status: r.status,
  effectiveAt: r.effective_at,
  inRange,
});

/**
 * What a run compares the statement with, in two set-based reads: the provider's deposits and withdrawals whose business
 * time is in [from, to); then, of the keys and hashes the statement names that none of those has, the items outside the
 * range that have them (an item booked just across the range's edge then matches instead of showing as two breaks).
 */
export const ledgerItemsFor = async (
  db: Pick<pg.ClientBase, 'query'>,
  providerId: string,
  from: string,
  to: string,
  lines: readonly StatementLine[],
): Promise<LedgerItem[]> => {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS.deposit} FROM deposits WHERE provider_id = $1 AND effective_at >= $2 AND effective_at < $3
     UNION ALL
     SELECT ${COLUMNS.withdrawal} FROM withdrawals WHERE provider_id = $1 AND effective_at >= $2 AND effective_at < $3`,
    [providerId, from, to],
  );
  const known = new Set<string>();
  for (const r of rows) {
    known.add(`${r.direction}|k|${r.key}`);
    if (r.direction === 'withdrawal') known.add(`${r.direction}|k|${r.id}`);
    if (r.tx_hash !== null) known.add(`${r.direction}|h|${r.tx_hash}`);
  }
  const unknown = (direction: 'deposit' | 'withdrawal', kind: 'k' | 'h'): string[] => {
    const out = new Set<string>();
    for (const l of lines) {
      const v = kind === 'k' ? l.externalId : l.txHash;
      if (l.direction === direction && v !== null && !known.has(`${direction}|${kind}|${v}`)) out.add(v);
    }
    return [...out];
  };
  const [dk, dh, wk, wh] = [unknown('deposit', 'k'), unknown('deposit', 'h'), unknown('withdrawal', 'k'), unknown('withdrawal', 'h')];
  const outside =
    dk.length + dh.length + wk.length + wh.length === 0
      ? []
      : (
          await db.query<Row>(
            `SELECT ${COLUMNS.deposit} FROM deposits WHERE provider_id = $1 AND NOT (effective_at >= $2 AND effective_at < $3)
               AND (external_id = ANY($4::text[]) OR tx_hash = ANY($5::text[]))
             UNION ALL
             SELECT ${COLUMNS.withdrawal} FROM withdrawals WHERE provider_id = $1 AND NOT (effective_at >= $2 AND effective_at < $3)
               AND (id = ANY($6::text[]) OR operation_key = ANY($6::text[]) OR tx_hash = ANY($7::text[]))`,
            [providerId, from, to, dk, dh, wk, wh],
          )
        ).rows;
  return [...rows.map((r) => itemOf(r, true)), ...outside.map((r) => itemOf(r, false))];
};
