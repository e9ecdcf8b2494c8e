import { scaleOf, USD_SCALE, type CurrencyId } from './currency.js';

/** An exact amount in minor units of some currency (1 BTC = 100_000_000n). Never a float. */
export type Minor = bigint;

/** A canonical decimal string as stored in events and shown in APIs: "12.5", "0.00000001", "-3". */
export type DecimalString = string & { readonly __decimal: unique symbol };

export type ParseError = Readonly<{ reason: 'not_a_number' | 'too_many_decimals' | 'too_large'; message: string }>;

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;
/** Upper bound for any amount: 10^30 major units keeps everything far inside NUMERIC and bigint. */
const MAX_INTEGER_DIGITS = 30;

/** Parses a decimal string at a scale into minor units, refusing anything that would lose digits. */
export const parseDecimal = (input: string, scale: number): Minor | ParseError => {
  const m = DECIMAL.exec(input.trim() === input ? input : '');
  if (!m) return { reason: 'not_a_number', message: `"${input}" is not a decimal number` };
  const [, sign, intPart = '0', fracRaw = ''] = m;
  const frac = fracRaw.replace(/0+$/, '');
  if (frac.length > scale) return { reason: 'too_many_decimals', message: `at most ${scale} decimal places are allowed` };
  if (intPart.replace(/^0+/, '').length > MAX_INTEGER_DIGITS) return { reason: 'too_large', message: 'amount is too large' };
  const minor = BigInt(intPart + frac.padEnd(scale, '0'));
  return sign ? -minor : minor;
};

export const isParseError = (v: Minor | ParseError): v is ParseError => typeof v !== 'bigint';

/** Formats minor units as a canonical decimal string without trailing zeros ("1.5", "0", "-0.25"). */
export const formatDecimal = (minor: Minor, scale: number): DecimalString => {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(scale + 1, '0');
  const int = digits.slice(0, digits.length - scale);
  const frac = scale > 0 ? digits.slice(digits.length - scale).replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${int}${frac ? `.${frac}` : ''}` as DecimalString;
};

export const toMinor = (currency: CurrencyId, amount: DecimalString): Minor => {
  const v = parseDecimal(amount, scaleOf(currency));
  if (isParseError(v)) throw new Error(`invariant: stored amount "${amount}" invalid for ${currency}: ${v.message}`);
  return v;
};
export const fromMinor = (currency: CurrencyId, minor: Minor): DecimalString => formatDecimal(minor, scaleOf(currency));

export const usdToMinor = (usd: DecimalString): Minor => {
  const v = parseDecimal(usd, USD_SCALE);
  if (isParseError(v)) throw new Error(`invariant: stored USD amount "${usd}" invalid: ${v.message}`);
  return v;
};
export const usdFromMinor = (minor: Minor): DecimalString => formatDecimal(minor, USD_SCALE);

/** amount × rate (USD per unit, a decimal string), rounded half-even to USD_SCALE in integers only. */
export const toUsdMinor = (currency: CurrencyId, amount: Minor, rate: DecimalString): Minor => {
  const rateDigits = (rate.split('.')[1] ?? '').length;
  const rateMinor = parseDecimal(rate, rateDigits);
  if (isParseError(rateMinor)) throw new Error(`invariant: invalid rate ${rate}`);
  const shift = scaleOf(currency) + rateDigits - USD_SCALE;
  const product = amount * rateMinor;
  if (shift <= 0) return product * 10n ** BigInt(-shift);
  return divRoundHalfEven(product, 10n ** BigInt(shift));
};

export const divRoundHalfEven = (n: bigint, d: bigint): bigint => {
  if (d === 0n) throw new Error('division by zero');
  const negative = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  let q = an / ad;
  const r2 = (an % ad) * 2n;
  if (r2 > ad || (r2 === ad && q % 2n === 1n)) q += 1n;
  return negative ? -q : q;
};
