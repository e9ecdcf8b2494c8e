/** Small figures every bench prints: percentiles, rounding, median and range. */

/** The value at percentile `p` of `sorted` (ascending), picked, not interpolated; 0 for no samples. */
export const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
export const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

export type Spread = Readonly<{ median: number; min: number; max: number }>;
/** Median (the blocks' own figure in the middle, as `percentile` picks it) and range of `xs`. */
export const spread = (xs: readonly number[]): Spread => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: percentile(s, 50), min: s[0]!, max: s[s.length - 1]! };
};
