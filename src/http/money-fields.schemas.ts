import { REQUEST_CURRENCY_IDS, scaleOf, USD_SCALE, isCurrencyId } from '../domain/money/currency.js';
import { isParseError, parseDecimal } from '../domain/money/money.js';
import { required } from '../shared/zod.js';
import { MAX_DECIMAL_CHARS, z } from './validate.js';

/** Shape only; the scale depends on the currency and is checked by `withScales`. No sign, no exponent. */
export const DecimalString = z
  .string({ error: required('a decimal string') })
  .max(MAX_DECIMAL_CHARS, `must be at most ${MAX_DECIMAL_CHARS} characters`)
  .regex(/^\d+(\.\d+)?$/, 'must be a non-negative decimal string such as "12.5" (no sign, no exponent)')
  .openapi({ type: 'string', example: '12.5' });

export const userId = z
  .number({ error: required('a number') })
  .int('must be an integer')
  .positive('must be a positive integer')
  .max(Number.MAX_SAFE_INTEGER, 'is too large')
  .openapi({ example: 42 });
export const currencyId = z.enum(REQUEST_CURRENCY_IDS, { error: required(`one of ${REQUEST_CURRENCY_IDS.join(', ')}`) });

type ScaleRule = Readonly<{ field: string; scale: 'currency' | 'usd'; positive: boolean }>;

/** Scale and sign per currency, run even when other fields failed, so one 400 lists every bad field before the ledger is called. */
export const withScales = <S extends z.ZodObject>(schema: S, rules: readonly ScaleRule[]): S =>
  schema.superRefine(
    (raw, ctx) => {
      // `when` runs this on any input, null included (the OpenAPI generator probes with null).
      const body = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
      const currency = typeof body.currencyId === 'string' && isCurrencyId(body.currencyId) ? body.currencyId : undefined;
      for (const rule of rules) {
        const value = body[rule.field];
        if (typeof value !== 'string' || !DecimalString.safeParse(value).success) continue;
        const scale = rule.scale === 'usd' ? USD_SCALE : currency === undefined ? undefined : scaleOf(currency);
        if (scale === undefined) continue;
        const minor = parseDecimal(value, scale);
        const message = isParseError(minor)
          ? minor.reason === 'too_many_decimals'
            ? `${minor.message} for ${rule.scale === 'usd' ? 'USD' : currency}`
            : minor.message
          : rule.positive && minor === 0n
            ? 'must be greater than zero'
            : undefined;
        if (message) ctx.addIssue({ code: 'custom', path: [rule.field], message, input: value });
      }
    },
    { when: () => true },
  ) as unknown as S;
