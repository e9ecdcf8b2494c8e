import { isCurrencyId, scaleOf } from '../../domain/money/currency.js';
import { formatDecimal, isParseError, parseDecimal } from '../../domain/money/money.js';
import type { Tolerances } from './reconcile.js';

/**
 * RECONCILIATION_TOLERANCES: `CUR=decimal` pairs separated by commas (`BTC=0.00000100,USDT=0.01`), each an exact decimal
 * at most the currency's decimals. A currency not named must agree to the minor unit. Throws naming the bad pair.
 */
export const parseTolerances = (text: string | undefined): Tolerances => {
  const tolerances = new Map<string, bigint>();
  for (const pair of (text ?? '').split(',').map((p) => p.trim())) {
    if (pair === '') continue;
    const [currency = '', value = ''] = pair.split('=').map((s) => s.trim());
    if (!isCurrencyId(currency)) throw new Error(`RECONCILIATION_TOLERANCES: "${pair}" names no currency the ledger knows`);
    const minor = parseDecimal(value, scaleOf(currency));
    if (isParseError(minor) || minor < 0n) {
      throw new Error(`RECONCILIATION_TOLERANCES: "${pair}" is not a decimal >= 0 with at most ${scaleOf(currency)} decimals`);
    }
    tolerances.set(currency, minor);
  }
  return tolerances;
};

/** The tolerances a run was made with, as recorded in it. */
export const tolerancesView = (tolerances: Tolerances): { currencyId: string; tolerance: string }[] =>
  [...tolerances.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([currencyId, minor]) => ({ currencyId, tolerance: isCurrencyId(currencyId) ? formatDecimal(minor, scaleOf(currencyId)) : '0' }));
