import { z } from '../http/validate.js';

export const EraseParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

export const EraseBody = z
  .object({
    reason: z.string().trim().min(3).max(500).openapi({
      description:
        "Why: the data-subject request's reference; for a forced erasure, why the retention rule is overridden. No personal data.",
      example: 'DSR-2026-0142',
    }),
    force: z.boolean().default(false).openapi({ description: 'Erase although the retention rule still holds (SuperAdmin, audited)' }),
  })
  .strict()
  .openapi('EraseBody');

export const ErasedView = z
  .object({
    userId: z.number().int(),
    erasedAt: z.string(),
    forced: z.boolean(),
    lastActivity: z.string().nullable().openapi({ description: 'The last movement of money, session or sign-up counted' }),
    retainedUntil: z.string().nullable().openapi({ description: 'Until when the retention rule held (lastActivity + years)' }),
    redactedEvents: z.number().int().openapi({
      description: 'User events written before encryption whose personal fields were blanked in place (verify checks the redaction)',
    }),
    legacyPlaintextEvents: z.number().int().openapi({
      description: 'User events written before encryption still holding personal fields in the clear (not sealed yet, or no seal key here)',
    }),
  })
  .openapi('Erased');
