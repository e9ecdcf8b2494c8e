import { USD_SCALE } from '../domain/money/currency.js';
import { formatDecimal, isParseError, parseDecimal, type Minor } from '../domain/money/money.js';

/**
 * The AML thresholds (docs/compliance.md, docs/configuration.md). The directive's threshold is EUR 2,000 and the ledger
 * carries USD values: the threshold is AML_THRESHOLD_USD when set, else AML_THRESHOLD_EUR (default 2000) times
 * AML_EUR_USD_RATE (default 1.08), in integers of USD minor units.
 */
export type AmlSettings = Readonly<{ thresholdUsd: Minor; windowHours: number; requiredKycLevel: number }>;

const decimal = (name: string, value: string, scale: number): Minor => {
  const minor = parseDecimal(value, scale);
  if (isParseError(minor) || minor < 0n) throw new Error(`${name}: ${value} is not a non-negative decimal`);
  return minor;
};

export const amlSettingsFrom = (env: Readonly<Record<string, string | undefined>>): AmlSettings => {
  const RATE_SCALE = 8;
  const thresholdUsd = env.AML_THRESHOLD_USD
    ? decimal('AML_THRESHOLD_USD', env.AML_THRESHOLD_USD, USD_SCALE)
    : (decimal('AML_THRESHOLD_EUR', env.AML_THRESHOLD_EUR ?? '2000', USD_SCALE) *
        decimal('AML_EUR_USD_RATE', env.AML_EUR_USD_RATE ?? '1.08', RATE_SCALE)) /
      10n ** BigInt(RATE_SCALE);
  const windowHours = Number(env.AML_WINDOW_HOURS ?? 24);
  const requiredKycLevel = Number(env.AML_REQUIRED_KYC_LEVEL ?? 1);
  if (!Number.isInteger(windowHours) || windowHours < 1 || windowHours > 720) throw new Error('AML_WINDOW_HOURS: 1 to 720 hours');
  if (!Number.isInteger(requiredKycLevel) || requiredKycLevel < 0) throw new Error('AML_REQUIRED_KYC_LEVEL: a level from 0');
  return { thresholdUsd, windowHours, requiredKycLevel };
};

export const usdText = (minor: Minor): string => formatDecimal(minor, USD_SCALE);
