/**
 * How the console shows money and times: the one home for both. Amounts are formatted from the API's decimal string with
 * bigint arithmetic only (never a JavaScript number), rounded half away from zero to the currency's readable precision,
 * with thousands separators; the exact string stays available for a title (hover) and for exports.
 */

/** Decimals shown per currency: USD (and the USD-pegged ones) to cents, each crypto currency at a readable precision. */
const SHOWN_DECIMALS: Readonly<Record<string, number>> = {
  USD: 2,
  DBC: 2,
  USDT: 2,
  USDC: 2,
  BTC: 8,
  LTC: 8,
  ETH: 6,
  TETH: 6,
  POL: 6,
  BNB: 6,
  SOL: 6,
  TRX: 6,
  XRP: 6,
  PLATFORM_TOKEN: 4,
};
/** Currencies shown with a fixed number of decimals (cents); the others drop trailing zeros. */
const FIXED = new Set(['USD']);
const DEFAULT_DECIMALS = 8;

export const shownDecimals = (currency: string | null | undefined): number =>
  (currency ? SHOWN_DECIMALS[currency] : undefined) ?? DEFAULT_DECIMALS;

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d*))?$/;

/** `1234567` -> `1,234,567` (digits only). */
const grouped = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * A decimal string rounded to `decimals` places (half away from zero), grouped by thousands; trailing zeros dropped unless
 * `fixed`. Anything that is not a plain decimal is returned as it came, so nothing is ever hidden.
 */
export const formatDecimal = (value: string, decimals: number, fixed = false): string => {
  const m = DECIMAL.exec(value.trim());
  if (!m) return value;
  const [, sign = '', int = '0', frac = ''] = m;
  const kept = frac.slice(0, decimals).padEnd(decimals, '0');
  let units = BigInt(int + kept);
  if ((frac[decimals] ?? '0') >= '5') units += 1n;
  const text = units.toString().padStart(decimals + 1, '0');
  const whole = text.slice(0, text.length - decimals);
  let part = decimals > 0 ? text.slice(text.length - decimals) : '';
  if (!fixed) part = part.replace(/0+$/, '');
  const negative = sign === '-' && units !== 0n;
  return `${negative ? '-' : ''}${grouped(whole)}${part ? `.${part}` : ''}`;
};

/** An amount as people read it (`1,234.57 USD`) and exactly as the API sent it (`1234.5678 USD`), for the title. */
export const formatMoney = (amount: string | null | undefined, currency?: string | null): Readonly<{ text: string; exact: string }> => {
  if (amount === null || amount === undefined || amount === '') {
    const dash = `—${currency ? ` ${currency}` : ''}`;
    return { text: dash, exact: dash };
  }
  const unit = currency ? ` ${currency}` : '';
  const shown = formatDecimal(amount, shownDecimals(currency), FIXED.has(currency ?? ''));
  return { text: `${shown}${unit}`, exact: `${amount}${unit}` };
};

/** The admin's time zone: the browser's (an IANA name such as Europe/Malta, or UTC). */
export const adminTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

const parts = (date: Date, timeZone: string) =>
  Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    })
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  ) as Record<string, string>;

/**
 * An instant in a time zone (the admin's by default), with the zone shown: `2026-11-29 05:03:21 CET`. The zone's short name
 * where the locale has one, else its offset (`GMT+1`); UTC as `UTC`. Not an instant: returned as it came.
 */
export const formatTime = (iso: string | null | undefined, timeZone: string = adminTimeZone()): string => {
  if (iso === null || iso === undefined || iso === '') return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const p = parts(date, timeZone);
  const zone = timeZone === 'UTC' || timeZone === 'Etc/UTC' ? 'UTC' : p.timeZoneName;
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${zone}`;
};
