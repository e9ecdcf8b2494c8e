import { z } from '../http/validate.js';

export const PeriodParams = z.object({
  period: z.string().max(10).openapi({
    description: 'A month `YYYY-MM` (or a day `YYYY-MM-DD` when LEDGER_PERIOD=day), in the ledger time zone',
    example: '2026-10',
  }),
});

export const BalancesPageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

const Amount = z.string().openapi({ description: 'An exact decimal', example: '1250.5' });
export const ClosingReport = z
  .object({
    period: z.string(),
    previous: z.string().nullable(),
    timeZone: z.string(),
    unit: z.enum(['month', 'day']),
    start: z.string().openapi({ description: 'First instant of the period (business time, inclusive)' }),
    end: z.string().openapi({ description: 'End of the period (business time, exclusive)' }),
    position: z.string().openapi({ description: 'Global position of the PeriodClosed event: everything before it is in this close' }),
    closedAt: z.string().openapi({ description: 'When the close was recorded' }),
    closedBy: z.number().int(),
    accounts: z.number().int(),
    trialBalance: z.array(z.object({ currencyId: z.string(), total: Amount })),
    liability: z.array(
      z.object({ currencyId: z.string(), playerBalances: Amount, withdrawalsHeld: Amount, openBetStakes: Amount, total: Amount }),
    ),
    movements: z.array(z.object({ kind: z.string(), currencyId: z.string(), players: Amount, house: Amount, legs: z.number().int() })),
    lateItems: z.array(
      z.object({
        eventId: z.string(),
        type: z.string(),
        streamId: z.string(),
        revision: z.number().int(),
        businessPeriod: z.string(),
        businessAt: z.string(),
        recordedAt: z.string(),
      }),
    ),
  })
  .openapi('ClosingReport');

export const ClosedPeriodView = z
  .object({
    period: z.string(),
    state: z.literal('CLOSED'),
    report: ClosingReport,
    sha256: z.string().nullable().openapi({ description: 'Digest of the report and every closing balance (canonical JSON)' }),
    sealed: z.boolean().openapi({ description: 'Whether an HMAC with the ledger seal key covers the digest' }),
    writtenAt: z.string(),
    balances: z.number().int().openapi({ description: 'Closing balances in the report (one per account and currency)' }),
  })
  .openapi('ClosedPeriod');

export const PeriodsView = z
  .object({
    timeZone: z.string(),
    unit: z.enum(['month', 'day']),
    nextToClose: z.string().nullable(),
    closed: z.array(
      z.object({
        period: z.string(),
        start: z.string(),
        end: z.string(),
        closedAt: z.string(),
        closedBy: z.number().int(),
        sealed: z.boolean(),
      }),
    ),
  })
  .openapi('Periods');

export const ClosingBalancesView = z
  .object({
    period: z.string(),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    balances: z.array(z.object({ account: z.string(), currencyId: z.string(), balance: Amount })),
  })
  .openapi('ClosingBalances');
