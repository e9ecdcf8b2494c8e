/** Non-negative decimal strings as scaled bigints: money is compared and scaled without a JavaScript number. */
const scaled = (s: string, scale: number): bigint => {
  const [i = '0', f = ''] = s.replace(/^-/, '').split('.');
  return BigInt(i + f.padEnd(scale, '0').slice(0, scale));
};
const scaleOf = (...xs: string[]) => Math.max(0, ...xs.map((x) => x.split('.')[1]?.length ?? 0));

/** The largest of the decimal strings ("0" for none). */
export const maxDecimal = (xs: string[]): string => xs.reduce((m, x) => (scaled(x, scaleOf(x, m)) > scaled(m, scaleOf(x, m)) ? x : m), '0');

/** a / max in thousandths, for a bar's width only (never shown as money). */
export const permille = (a: string, max: string): number => {
  const s = scaleOf(a, max);
  const m = scaled(max, s);
  return m === 0n ? 0 : Number((scaled(a, s) * 1000n) / m);
};
