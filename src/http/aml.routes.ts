import { Router } from 'express';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import type { Aml } from '../compliance/aml.js';
import { listAmlFlags } from '../compliance/aml.queries.js';
import type { AmlError } from '../domain/aml/aml.js';
import { AppError } from '../shared/app-error.js';
import { guardedRoutes } from './access.js';
import { authOf } from './auth.adapter.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { AmlFlagList, AmlFlagParams, AmlFlagRecord, AmlFlagsQuery, AssignAmlFlagBody, ClearAmlFlagBody } from './aml.schemas.js';
import { parseBody, parseParams, parseQuery } from './validate.js';

const orThrow = <T>(result: Either<AmlError, T>): T => {
  if (!isLeft(result)) return result.right;
  const e = result.left;
  if (e._tag === 'AmlFlagNotFound') throw new AppError('not-found', 'AML_FLAG_NOT_FOUND', `AML flag ${e.flagId} not found`);
  if (e._tag === 'AmlFlagCleared') throw new AppError('conflict', 'AML_FLAG_CLEARED', `AML flag ${e.flagId} is already cleared`);
  throw new AppError('invalid', 'VALIDATION_FAILED', 'Validation failed', [{ field: 'body.note', message: 'a note is required' }]);
};

/** AML due-diligence flags (docs/compliance.md): listed, assigned and cleared with a note; each change an audited event. */
export const amlRoutes = (deps: BackOfficeDeps, aml: Aml): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry, '', {
    404: ['AML_FLAG_NOT_FOUND'],
    409: ['AML_FLAG_CLEARED'],
  });
  route(
    'get',
    '/aml-flags',
    { kind: 'perm', permission: 'kyc.view' },
    {
      summary: 'AML due-diligence flags, newest first',
      addition: true,
      request: { query: AmlFlagsQuery },
      responses: { 200: { description: 'At most 500 flags', schema: AmlFlagList } },
    },
    async (req, res) => {
      const { status } = parseQuery(AmlFlagsQuery, req);
      res.json({ data: await listAmlFlags(deps.pool, status) });
    },
  );
  route(
    'post',
    '/aml-flags/:id/assign',
    { kind: 'perm', permission: 'kyc.edit' },
    {
      summary: 'Assign an open AML flag',
      addition: true,
      request: { params: AmlFlagParams, body: AssignAmlFlagBody },
      responses: { 200: { description: 'The flag', schema: AmlFlagRecord } },
    },
    async (req, res) => {
      const { id } = parseParams(AmlFlagParams, req);
      const admin = authOf(req).userId;
      const { assigneeUserId } = parseBody(AssignAmlFlagBody, req);
      res.json(orThrow(await aml.assign(id, assigneeUserId ?? admin, admin)));
    },
  );
  route(
    'post',
    '/aml-flags/:id/clear',
    { kind: 'perm', permission: 'kyc.edit' },
    {
      summary: 'Clear an open AML flag with a note',
      description: 'A withdrawal the flag held for review can be approved once it is cleared. Flags are never deleted.',
      addition: true,
      request: { params: AmlFlagParams, body: ClearAmlFlagBody },
      responses: { 200: { description: 'The cleared flag', schema: AmlFlagRecord } },
    },
    async (req, res) => {
      const { id } = parseParams(AmlFlagParams, req);
      const { note } = parseBody(ClearAmlFlagBody, req);
      res.json(orThrow(await aml.clear(id, note, authOf(req).userId)));
    },
  );
  return router;
};
