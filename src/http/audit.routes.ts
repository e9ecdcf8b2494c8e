import { Router } from 'express';
import { NOW, parsePointInTime, replayUser } from '../audit/balance-replay.js';
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
          'An ISO 8601 timestamp with a zone (events recorded at or before it) ' +
          'or a global position "commit/prepare" (events at or before it). Default: now.',
        example: '2026-01-31T23:59:59Z',
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
        'the audit view of a balance at a past time or global position.',
      request: { query: BalancesAtQuery },
      responses: {
        200: { description: 'The balances at that point', schema: BalancesAt },
        404: { description: 'USER_NOT_FOUND' },
      },
    },
    async (req, res) => {
      const { userId, at } = parseQuery(BalancesAtQuery, req);
      const point = parsePointInTime(at);
      const replay = await replayUser({ store: deps.store }, await existingUser(deps, userId), 'error' in point ? NOW : point);
      res.json({ userId, at: replay.at, position: replay.position, balances: replay.balances });
    },
  );
  return router;
};
