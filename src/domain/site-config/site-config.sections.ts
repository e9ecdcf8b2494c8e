import { z } from 'zod';
import { CURRENCY_IDS } from '../money/currency.js';
import { isParseError, parseDecimal } from '../money/money.js';

export const CONFIG_CODES = ['COMMON', 'BATTLES', 'AFFILIATES', 'WITHDRAWALS'] as const;
export type ConfigCode = (typeof CONFIG_CODES)[number];

const decimal = (scale = 8) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a non-negative decimal string')
    .refine((v) => !isParseError(parseDecimal(v, scale)), `at most ${scale} decimal places`);
const fraction = decimal().refine((v) => Number(v) < 1, 'must be below 1');

/** One schema per section: a PUT replaces the whole section, and unknown fields are refused (a typo must not be stored). */
export const SECTION_SCHEMAS = {
  COMMON: z.strictObject({
    /** USD per one unit of each listed currency; written to currency_rates (the ledger's USD values). */
    rates: z.partialRecord(z.enum(CURRENCY_IDS), decimal()).optional(),
    maintenanceMode: z.boolean().optional(),
    supportEmail: z.email().optional(),
  }),
  BATTLES: z
    .strictObject({
      enabled: z.boolean().optional(),
      minPlayers: z.int().min(2).max(4).optional(),
      maxPlayers: z.int().min(2).max(4).optional(),
      houseEdge: fraction.optional(),
    })
    .refine((c) => c.minPlayers === undefined || c.maxPlayers === undefined || c.minPlayers <= c.maxPlayers, {
      message: 'minPlayers must not exceed maxPlayers',
      path: ['minPlayers'],
    }),
  AFFILIATES: z.strictObject({
    enabled: z.boolean().optional(),
    minClaimUsdAmount: decimal().optional(),
    defaultCommission: fraction.optional(),
  }),
  WITHDRAWALS: z.strictObject({
    enabled: z.boolean().optional(),
    manualApprovalAboveUsd: decimal().optional(),
    dailyLimitUsd: decimal().optional(),
  }),
} as const satisfies Record<ConfigCode, z.ZodType>;

export type SectionConfig<C extends ConfigCode> = z.output<(typeof SECTION_SCHEMAS)[C]>;
