import { Router } from 'express';
import { guardedRoutes } from './access.js';
import {
  affiliateRecord,
  affiliateStats,
  listLevels,
  listReferredUsers,
} from '../read-models/affiliate-commission/affiliate-commission.queries.js';
import { AffiliateFindOneBody, AffiliateUsersBody } from './affiliates.schemas.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { HttpError } from './http-errors.js';
import { parseBody } from './validate.js';
import { UntypedList, UntypedObject } from './openapi.schemas.js';

const found = <T>(value: T | undefined, userId: number): T => {
  if (value === undefined) throw new HttpError(404, 'USER_NOT_FOUND', `User ${userId} not found`);
  return value;
};

/** Affiliate levels, referred users, an affiliate's record and stats (read side; commission accrues in a projection). */
export const affiliatesRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry, '', { 404: ['USER_NOT_FOUND'] });

  route(
    'get',
    '/affiliate/levels',
    { kind: 'perm', permission: 'affiliate.levels.view' },
    {
      summary: 'Affiliate levels',
      responses: { 200: { description: 'Array of affiliate levels', schema: UntypedList } },
    },
    async (_req, res) => {
      res.json(await listLevels(deps.pool));
    },
  );
  route(
    'post',
    '/affiliate/users',
    { kind: 'perm', permission: 'affiliate.users.view' },
    {
      summary: "An affiliate's referred users",
      request: { body: AffiliateUsersBody },
      responses: { 201: { description: 'Paginated referred users', schema: UntypedObject } },
    },
    async (req, res) => {
      const { where, ...rest } = parseBody(AffiliateUsersBody, req);
      res.status(201).json(await listReferredUsers(deps.pool, { ...rest, ownerId: where.ownerId }));
    },
  );
  route(
    'post',
    '/affiliate/find-one',
    { kind: 'perm', permission: 'affiliate.find-one.view' },
    {
      summary: "A user's affiliate record",
      request: { body: AffiliateFindOneBody },
      responses: { 201: { description: 'The affiliate record', schema: UntypedObject } },
    },
    async (req, res) => {
      const { where } = parseBody(AffiliateFindOneBody, req);
      res.status(201).json(found(await affiliateRecord(deps.pool, where.userId), where.userId));
    },
  );
  route(
    'post',
    '/affiliate/find-one-stats',
    { kind: 'perm', permission: 'affiliate.find-one-stats.view' },
    {
      summary: "A user's affiliate stats",
      request: { body: AffiliateFindOneBody },
      responses: { 201: { description: 'The affiliate stats', schema: UntypedObject } },
    },
    async (req, res) => {
      const { where } = parseBody(AffiliateFindOneBody, req);
      res.status(201).json(found(await affiliateStats(deps.pool, where.userId), where.userId));
    },
  );
  return router;
};
