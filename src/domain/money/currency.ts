/** Every currency the ledger knows and its scale (decimals): the one place scales are defined. */
export const CURRENCY_SCALES = {
  /** The platform's USD-pegged betting currency (the only one BetsFilter accepts). */
  DBC: 2,
  BTC: 8,
  ETH: 18,
  LTC: 8,
  TRX: 6,
  POL: 18,
  USDT: 6,
  BNB: 18,
  SOL: 9,
  USDC: 6,
  XRP: 6,
  TETH: 18,
  PLATFORM_TOKEN: 8,
} as const;

export type CurrencyId = keyof typeof CURRENCY_SCALES;

/** Currencies accepted in requests (tips, balance update, give prize, rakeback filter). */
export const REQUEST_CURRENCY_IDS = [
  'DBC',
  'BTC',
  'ETH',
  'LTC',
  'TRX',
  'POL',
  'USDT',
  'BNB',
  'SOL',
  'USDC',
  'XRP',
  'TETH',
] as const satisfies readonly CurrencyId[];
/** Currencies that may appear on records in responses. */
export const CURRENCY_IDS = [...REQUEST_CURRENCY_IDS, 'PLATFORM_TOKEN'] as const satisfies readonly CurrencyId[];
export type RequestCurrencyId = (typeof REQUEST_CURRENCY_IDS)[number];

/** USD figures (usdAmount, usdPayout, stats) are kept at this scale. */
export const USD_SCALE = 8;

export const isCurrencyId = (s: string): s is CurrencyId => Object.hasOwn(CURRENCY_SCALES, s);
export const scaleOf = (c: CurrencyId): number => CURRENCY_SCALES[c];
