import { Router } from 'express';
import { NOW, parseKnownAt, parsePointInTime, replayUser } from '../audit/balance-replay.js';
import { guardedRoutes } from './access.js';
import { existingUser, type BackOfficeDeps } from './back-office.deps.js';
import { parseQuery, z } from './validate.js';

export const BalancesAtQuery = z
  .object({
    userId: z.coerce
      .number({ error: 'must be a user id' })
      .int('must be a user id')
      .positive('must be a user id')
      .max(Number.MAX_SAFE_INTEGER, 'must be a user id'),
    at: z
      .string()
      .optional()
      .superRefine((value, ctx) => {
        const point = parsePointInTime(value);
        if ('error' in point) ctx.addIssue({ code: 'custom', message: point.error });
      })
      .openapi({
        description:
          'Business time: an ISO 8601 timestamp with a zone (events whose business time, effectiveAt, is at or before it, ' +
          'whenever they were recorded) or a global position "commit/prepare" (events at or before it, in recording order). ' +
          'Default: now.',
        example: '2026-01-31T23:59:59Z',
      }),
    knownAt: z
      .string()
      .optional()
      .superRefine((value, ctx) => {
        const t = parseKnownAt(value);
        if (t && 'error' in t) ctx.addIssue({ code: 'custom', message: t.error });
      })
      .openapi({
        description:
          'Recording time: an ISO 8601 timestamp with a zone; only events the ledger had recorded at or before it ' +
          '(the balance as of `at` as the ledger knew it then). Default: everything recorded.',
        example: '2026-02-05T00:00:00Z',
      }),
  })
  .openapi('BalancesAtQuery');

export const BalancesAt = z
  .object({
    userId: z.number().int(),
    at: z.string().nullable(),
    position: z.string().nullable(),
    balances: z.array(z.object({ currencyId: z.string(), amount: z.string().openapi({ example: '12.5' }) })),
  })
  .openapi('BalancesAt');

/** GET /accounting/balances: point-in-time balances folded from the wallet stream, never a read model, like `ledger replay`. */
export const auditRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);

  route(
    'get',
    '/accounting/balances',
    { kind: 'perm', permission: 'balance.view' },
    {
      summary: "A user's balance per currency at a point in time",
      addition: true,
      description:
        'Folded from the wallet stream in the event store (not from the read models): ' +
        'the audit view of a balance as of a business time or global position, optionally as known at a recording time.',
      request: { query: BalancesAtQuery },
      responses: {
        200: { description: 'The balances at that point', schema: BalancesAt },
        404: { description: 'USER_NOT_FOUND' },
      },
    },
    async (req, res) => {
      const { userId, at, knownAt } = parseQuery(BalancesAtQuery, req);
      const point = parsePointInTime(at);
      const known = parseKnownAt(knownAt);
      const replay = await replayUser(
        { store: deps.store },
        await existingUser(deps, userId),
        'error' in point ? NOW : point,
        known && !('error' in known) ? known : undefined,
      );
      res.json({ userId, at: replay.at, position: replay.position, balances: replay.balances });
    },
  );
  return router;
};
