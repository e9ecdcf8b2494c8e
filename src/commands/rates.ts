import type pg from 'pg';
import type { CurrencyId } from '../domain/money/currency.js';
import type { DecimalString } from '../domain/money/money.js';

/** USD rate of each currency (a decimal string), read from currency_rates and cached briefly. */
export type Rates = Readonly<{ usdRate: (currencyId: CurrencyId) => Promise<DecimalString>; invalidate: () => void }>;

export const createRates = (deps: { pool: pg.Pool; ttlMs?: number; clock?: () => number }): Rates => {
  const ttl = deps.ttlMs ?? 30_000;
  const now = deps.clock ?? Date.now;
  let cached: { at: number; rates: Map<string, DecimalString> } | undefined;
  let loading: Promise<Map<string, DecimalString>> | undefined;

  const load = async (): Promise<Map<string, DecimalString>> => {
    // numeric::text keeps every digit: the rate never passes through a float.
    const { rows } = await deps.pool.query<{ currency_id: string; usd_rate: string }>(
      'SELECT currency_id, usd_rate::text AS usd_rate FROM currency_rates',
    );
    const rates = new Map(rows.map((r) => [r.currency_id, r.usd_rate as DecimalString]));
    cached = { at: now(), rates };
    return rates;
  };

  return {
    usdRate: async (currencyId) => {
      let rates = cached && now() - cached.at < ttl ? cached.rates : undefined;
      if (!rates) {
        loading ??= load().finally(() => {
          loading = undefined;
        });
        rates = await loading;
      }
      return rates.get(currencyId) ?? ('0' as DecimalString);
    },
    invalidate: () => {
      cached = undefined;
    },
  };
};
