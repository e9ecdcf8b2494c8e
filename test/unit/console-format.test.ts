import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDecimal, formatMoney, formatTime, shownDecimals } from '../../console/src/format.js';

/** The exact rational value of a decimal string, as numerator over 10^scale, for comparing without floats. */
const exact = (s: string, scale: number): bigint => {
  const negative = s.startsWith('-');
  const [i = '0', f = ''] = s.replace(/^[-+]/, '').replace(/,/g, '').split('.');
  const units = BigInt(i + f.padEnd(scale, '0'));
  return negative ? -units : units;
};

const decimalString = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }))
  .map(([negative, units, scale]) => {
    const digits = units.toString().padStart(scale + 1, '0');
    const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
    return negative && units !== 0n ? `-${text}` : text;
  });

describe('console money and time formatting', () => {
  it('when a USD amount is shown, then it is rounded to cents with thousands separators and the exact value is kept', () => {
    expect(formatMoney('1234.5678', 'USD')).toEqual({ text: '1,234.57 USD', exact: '1234.5678 USD' });
    expect(formatMoney('828.898879999999998', 'USD').text).toBe('828.90 USD');
    expect(formatMoney('7.5', 'USD').text).toBe('7.50 USD');
    expect(formatMoney('0', 'USD').text).toBe('0.00 USD');
    expect(formatMoney('-1234567.005', 'USD').text).toBe('-1,234,567.01 USD');
    expect(formatMoney('-0.004', 'USD').text).toBe('0.00 USD');
    expect(formatMoney('999.995', 'USD').text).toBe('1,000.00 USD');
  });

  it('when a crypto amount is shown, then it has its currency precision, no trailing zeros, and the exact value in the title', () => {
    expect(formatMoney('0.123456789012345678', 'ETH')).toEqual({ text: '0.123457 ETH', exact: '0.123456789012345678 ETH' });
    expect(formatMoney('1831.00000000', 'BTC').text).toBe('1,831 BTC');
    expect(formatMoney('10160000.123456789', 'LTC').text).toBe('10,160,000.12345679 LTC');
    expect(formatMoney('12.5', 'DBC').text).toBe('12.5 DBC');
    expect(formatMoney(null, 'BTC').text).toBe('— BTC');
    expect(formatMoney('not a number', 'BTC').text).toBe('not a number BTC');
  });

  it('when any decimal is rounded, then it is within half a unit of its last shown place, grouped by thousands', () => {
    fc.assert(
      fc.property(decimalString, fc.integer({ min: 0, max: 18 }), fc.boolean(), (value, decimals, fixed) => {
        const shown = formatDecimal(value, decimals, fixed);
        expect(shown).toMatch(/^-?\d{1,3}(,\d{3})*(\.\d+)?$/);
        const scale = 19;
        const diff = exact(shown, scale) - exact(value, scale);
        const half = 10n ** BigInt(scale - decimals) / 2n;
        expect(diff <= half && diff >= -half).toBe(true);
        if (fixed && decimals > 0) expect(shown.split('.')[1]?.length).toBe(decimals);
      }),
    );
  });

  it('every currency of the ledger has a readable precision', () => {
    for (const c of ['USD', 'DBC', 'BTC', 'ETH', 'LTC', 'TRX', 'POL', 'USDT', 'BNB', 'SOL', 'USDC', 'XRP', 'TETH', 'PLATFORM_TOKEN'])
      expect(shownDecimals(c)).toBeLessThanOrEqual(8);
  });

  it('when a time is shown, then it is in the given zone with the zone named', () => {
    expect(formatTime('2026-11-29T04:03:21.123Z', 'UTC')).toBe('2026-11-29 04:03:21 UTC');
    expect(formatTime('2026-07-01T10:00:00Z', 'Europe/Malta')).toMatch(/^2026-07-01 12:00:00 (CEST|GMT\+2)$/);
    expect(formatTime('2026-12-31T23:30:00Z', 'America/New_York')).toMatch(/^2026-12-31 18:30:00 (EST|GMT-5)$/);
    expect(formatTime(null)).toBe('—');
    expect(formatTime('soon')).toBe('soon');
  });
});
