import { Router } from 'express';
import { isLeft } from 'fp-ts/lib/Either.js';
import { revokeAllAccess } from '../auth/sessions.js';
import { guardedRoutes } from '../http/access.js';
import { authOf } from '../http/auth.adapter.js';
import type { BackOfficeDeps } from '../http/back-office.deps.js';
import { HttpError } from '../http/http-errors.js';
import { parseBody, parseParams } from '../http/validate.js';
import { erasePerson, type EraseError, type ErasureDeps } from './erase-person.use-case.js';
import { redactLegacyEvents } from './redact-legacy.js';
import { EraseBody, ErasedView, EraseParams } from './erasure.schemas.js';

/** The read models that copy personal data: settled before the copies are scrubbed. */
const PERSONAL_READS = ['users', 'admin-audit', 'sign-up-effects'];

const eraseError = (e: EraseError): HttpError => {
  switch (e._tag) {
    case 'UserNotFound':
      return new HttpError(404, 'USER_NOT_FOUND', `User ${e.userId} not found`);
    case 'AlreadyErased':
      return new HttpError(409, 'ALREADY_ERASED', `User ${e.userId} was erased at ${e.erasedAt}`);
    case 'SelfErasure':
      return new HttpError(403, 'FORBIDDEN', 'An admin cannot erase themselves');
    case 'RetentionHolds':
      return new HttpError(
        409,
        'RETENTION_HOLDS',
        `User ${e.userId}'s records are kept until ${e.retainedUntil} (last activity ${e.lastActivity}); ` +
          'a SuperAdmin may force the erasure with a reason',
        [{ field: 'body.force', message: `retention holds until ${e.retainedUntil}` }],
      );
  }
};

/** `sealKey`: set, user events written before encryption are redacted in place (PostgreSQL store) and verify accepts them. */
export type ErasureSettings = Readonly<{ retentionYears: number; sealKey?: Buffer | undefined; clock?: () => Date }>;

/** POST /user/{id}/erase: crypto-shredding of a person's personal data (docs/compliance-erasure.md). */
export const erasureRoutes = (deps: BackOfficeDeps & Readonly<{ erasure: ErasureSettings }>): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  const { pool } = deps;
  const sealKey = deps.erasure.sealKey;
  const erasureDeps: ErasureDeps = {
    pool,
    store: deps.store,
    users: deps.auth.users,
    retentionYears: deps.erasure.retentionYears,
    ...(deps.erasure.clock ? { clock: deps.erasure.clock } : {}),
    endAccess: (...a) => revokeAllAccess(pool, ...a),
    ...(sealKey && deps.store.kind === 'postgres' ? { redactLegacy: (userId: number) => redactLegacyEvents(pool, sealKey, userId) } : {}),
    settleReadModels: async () => deps.reads?.waiter.reach(PERSONAL_READS, undefined, Math.max(deps.reads.timeoutMs, 5_000)),
  };

  route(
    'post',
    '/user/:id/erase',
    { kind: 'superadmin' },
    {
      summary: 'Erase a person: their key is deleted, so their personal data in the events can no longer be read',
      addition: true,
      description:
        'Deletes the per-person key the user events encrypt e-mail, username, IP, user agent, country and profile under, ' +
        'and removes the copies in read models, sessions and identity keys. Money history, balances, reports and the seals ' +
        'stay as they were. Refused with 409 RETENTION_HOLDS while the retention rule holds (ERASURE_RETENTION_YEARS after ' +
        'the last activity) unless `force` is set; 409 ALREADY_ERASED the second time. Recorded as an event (the admin ' +
        "audit log's `user.erase`, with the reason).",
      request: { params: EraseParams, body: EraseBody },
      responses: { 200: { description: 'The erasure', schema: ErasedView } },
      errors: { 403: ['FORBIDDEN'], 404: ['USER_NOT_FOUND'], 409: ['RETENTION_HOLDS', 'ALREADY_ERASED'] },
    },
    async (req, res) => {
      const { id } = parseParams(EraseParams, req);
      const { reason, force } = parseBody(EraseBody, req);
      const erased = await erasePerson(erasureDeps, { userId: id, adminUserId: authOf(req).userId, reason, force });
      if (isLeft(erased)) throw eraseError(erased.left);
      res.json(erased.right);
    },
  );
  return router;
};
