import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CURRENCY_IDS, scaleOf } from '../../src/domain/money/currency.js';
import {
  divRoundHalfEven,
  formatDecimal,
  fromMinor,
  isParseError,
  parseDecimal,
  toMinor,
  toUsdMinor,
  type DecimalString,
} from '../../src/domain/money/money.js';

const dec = (s: string) => s as DecimalString;
const arbScale = fc.integer({ min: 0, max: 18 });
const arbMinor = fc.bigInt({ min: -(10n ** 30n) + 1n, max: 10n ** 30n - 1n });

describe('parseDecimal / formatDecimal', () => {
  it('when any amount is formatted and parsed back at the same scale, then it is unchanged', () => {
    fc.assert(
      fc.property(arbMinor, arbScale, (m, scale) => {
        expect(parseDecimal(formatDecimal(m, scale), scale)).toBe(m);
      }),
    );
  });

  it('when a canonical decimal string is parsed and formatted, then the same string comes back', () => {
    fc.assert(
      fc.property(arbMinor, arbScale, (m, scale) => {
        const s = formatDecimal(m, scale);
        const parsed = parseDecimal(s, scale);
        if (isParseError(parsed)) throw new Error(parsed.message);
        expect(formatDecimal(parsed, scale)).toBe(s);
      }),
    );
  });

  it('when formatting, then trailing zeros are dropped and small amounts keep their leading zeros', () => {
    expect(formatDecimal(150_000_000n, 8)).toBe('1.5');
    expect(formatDecimal(1n, 8)).toBe('0.00000001');
    expect(formatDecimal(0n, 8)).toBe('0');
    expect(formatDecimal(-25n, 2)).toBe('-0.25');
    expect(formatDecimal(300n, 2)).toBe('3');
    expect(formatDecimal(42n, 0)).toBe('42');
  });

  it('when an amount has up to the scale of decimals, then it parses into exact minor units', () => {
    expect(parseDecimal('1.5', 8)).toBe(150_000_000n);
    expect(parseDecimal('0.00000001', 8)).toBe(1n);
    expect(parseDecimal('12', 2)).toBe(1200n);
    expect(parseDecimal('007.10', 2)).toBe(710n);
    expect(parseDecimal('0.000000000000000001', 18)).toBe(1n);
  });

  it('when an amount has more decimals than the scale, then it is refused (trailing zeros do not count)', () => {
    expect(parseDecimal('0.000000001', 8)).toMatchObject({ reason: 'too_many_decimals' });
    expect(parseDecimal('1.005', 2)).toMatchObject({ reason: 'too_many_decimals' });
    expect(parseDecimal('1.5', 0)).toMatchObject({ reason: 'too_many_decimals' });
    expect(parseDecimal('1.50000', 2)).toBe(150n);
  });

  it("when an amount is negative, then it parses as a negative number (positivity is the decider's rule)", () => {
    expect(parseDecimal('-1.25', 2)).toBe(-125n);
    expect(parseDecimal('-0', 2)).toBe(0n);
  });

  it('when an amount has more than 30 integer digits, then it is refused as too large', () => {
    expect(parseDecimal('1'.padEnd(30, '0'), 8)).toBe(10n ** 29n * 10n ** 8n);
    expect(parseDecimal('1'.padEnd(31, '0'), 8)).toMatchObject({ reason: 'too_large' });
    expect(parseDecimal(`000${'9'.repeat(30)}`, 2)).toBe(10n ** 32n - 100n);
  });

  it.each(['1e5', '', ' 1', '1 ', '1.', '.5', '0x10', 'NaN', 'Infinity', '+1', '1,5', '--1', '1.2.3', '١٢', 'abc'])(
    'when the string is %j, then it is not a number',
    (input) => {
      expect(parseDecimal(input, 8)).toMatchObject({ reason: 'not_a_number' });
    },
  );

  it('when converting with a currency, then its scale from the one table is used', () => {
    for (const c of CURRENCY_IDS) {
      const one = 10n ** BigInt(scaleOf(c));
      expect(toMinor(c, dec('1'))).toBe(one);
      expect(fromMinor(c, one + 1n)).toBe(`1.${'1'.padStart(scaleOf(c), '0')}`);
    }
    expect(() => toMinor('DBC', dec('0.001'))).toThrow(/invariant/);
  });
});

describe('toUsdMinor', () => {
  it('when amount × rate fits the USD scale, then it is exact', () => {
    expect(toUsdMinor('BTC', 150_000_000n, dec('60000'))).toBe(90_000n * 10n ** 8n);
    expect(toUsdMinor('DBC', 1234n, dec('1'))).toBe(1_234_000_000n);
  });

  it('when the product has more decimals than USD keeps, then it rounds half to even', () => {
    // 1 satoshi × 0.5 = 0.000000005 USD: a half, rounded to the even 0.
    expect(toUsdMinor('BTC', 1n, dec('0.5'))).toBe(0n);
    // 3 satoshi × 0.5 = 0.000000015: a half, rounded to the even 0.00000002.
    expect(toUsdMinor('BTC', 3n, dec('0.5'))).toBe(2n);
    // 1 satoshi × 0.51 = 0.0000000051: above the half, rounds up.
    expect(toUsdMinor('BTC', 1n, dec('0.51'))).toBe(1n);
    // 1 wei × 3000 = 0.000000000000003 USD: rounds to zero.
    expect(toUsdMinor('ETH', 1n, dec('3000'))).toBe(0n);
    // 0.5 ETH at 3000.12345679 = 1500.061728395: an exact half after ...839 (odd), rounded up to ...840.
    expect(toUsdMinor('ETH', 5n * 10n ** 17n, dec('3000.12345679'))).toBe(150_006_172_840n);
    // 0.5 ETH at 3000.123456789 = 1500.0617283945: below the half, rounded down.
    expect(toUsdMinor('ETH', 5n * 10n ** 17n, dec('3000.123456789'))).toBe(150_006_172_839n);
  });

  it('when the rate has trailing zeros, then the result is the same as without them', () => {
    expect(toUsdMinor('USDT', 1_234_567n, dec('1.000'))).toBe(toUsdMinor('USDT', 1_234_567n, dec('1')));
  });
});

describe('divRoundHalfEven', () => {
  it.each([
    [5n, 2n, 2n],
    [7n, 2n, 4n],
    [1n, 3n, 0n],
    [2n, 3n, 1n],
    [-5n, 2n, -2n],
    [-7n, 2n, -4n],
    [5n, -2n, -2n],
    [-2n, -3n, 1n],
    [10n, 5n, 2n],
    [0n, 7n, 0n],
    [25n, 10n, 2n],
    [35n, 10n, 4n],
    [26n, 10n, 3n],
  ])('when %s is divided by %s, then the result is %s', (n, d, q) => {
    expect(divRoundHalfEven(n, d)).toBe(q);
  });

  it('when dividing by zero, then it throws', () => {
    expect(() => divRoundHalfEven(1n, 0n)).toThrow(/division by zero/);
  });

  it('when any division is rounded, then the error is at most half the divisor and exact halves land on even', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.bigInt({ min: 1n, max: 10n ** 12n }), (n, d) => {
        const q = divRoundHalfEven(n, d);
        const err2 = (n - q * d) * 2n;
        const absErr2 = err2 < 0n ? -err2 : err2;
        expect(absErr2 <= d).toBe(true);
        if (absErr2 === d) expect(q % 2n).toBe(0n);
        expect(divRoundHalfEven(-n, d)).toBe(-q);
      }),
    );
  });
});
