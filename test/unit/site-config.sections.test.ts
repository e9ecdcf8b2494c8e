import { describe, expect, it } from 'vitest';
import { changeSiteConfig, configStream } from '../../src/domain/site-config/site-config.events.js';
import { SECTION_SCHEMAS } from '../../src/domain/site-config/site-config.sections.js';

describe('site config sections', () => {
  it('when COMMON rates are decimal strings of known currencies, then they pass; a negative, exponent or unknown currency fails', () => {
    expect(SECTION_SCHEMAS.COMMON.safeParse({ rates: { BTC: '65000.12345678', USDT: '1' } }).success).toBe(true);
    for (const rates of [{ BTC: '-1' }, { BTC: '1e5' }, { BTC: '1.123456789' }, { DOGE: '1' }]) {
      expect(SECTION_SCHEMAS.COMMON.safeParse({ rates }).success).toBe(false);
    }
  });

  it('when a section carries a field of another section, then it fails (sections are strict)', () => {
    expect(SECTION_SCHEMAS.AFFILIATES.safeParse({ enabled: true, houseEdge: '0.1' }).success).toBe(false);
    expect(SECTION_SCHEMAS.WITHDRAWALS.safeParse({}).success).toBe(true);
  });

  it('when a change is decided, then it is one SiteConfigChanged event for stream config-<code> carrying the admin', () => {
    const data = { code: 'BATTLES' as const, config: { enabled: true }, request: {}, adminUserId: 7, at: '2026-01-01T00:00:00.000Z' };
    expect(changeSiteConfig(data)).toEqual({ type: 'SiteConfigChanged', data });
    expect(configStream('BATTLES')).toBe('config-BATTLES');
  });
});
