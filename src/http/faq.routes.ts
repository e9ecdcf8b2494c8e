import { Router } from 'express';
import { authOf } from './auth.adapter.js';
import { createFaq, deleteFaq, listFaq, updateFaq, type Faq } from '../commands/content.js';
import { guardedRoutes } from './access.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { FaqCreateBody, FaqDeleteBody, FaqUpdateBody } from './content.schemas.js';
import { HttpError } from './http-errors.js';
import { parseBody } from './validate.js';
import { FaqEntry, FaqList } from './openapi.schemas.js';

const found = (faq: Faq | undefined, id: number): Faq => {
  if (!faq) throw new HttpError(404, 'FAQ_NOT_FOUND', `FAQ ${id} not found`);
  return faq;
};

/** FAQ CRUD, ordered by `order` (1..n). Reads: any Admin; writes: faq.edit (decisions.md, a deliberate deviation). */
export const faqRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry, '', { 404: ['FAQ_NOT_FOUND'] });

  route(
    'get',
    '/faq',
    { kind: 'auth' },
    {
      summary: 'List FAQ entries',
      responses: { 200: { description: 'FAQ entries', schema: FaqList } },
    },
    async (_req, res) => {
      res.json({ data: await listFaq(deps.pool) });
    },
  );
  route(
    'post',
    '/faq',
    { kind: 'perm', permission: 'faq.edit' },
    {
      summary: 'Create a FAQ entry',
      request: { body: FaqCreateBody },
      responses: { 201: { description: 'The entry', schema: FaqEntry } },
    },
    async (req, res) => {
      res.status(201).json(await createFaq(deps.pool, parseBody(FaqCreateBody, req), authOf(req).userId));
    },
  );
  route(
    'put',
    '/faq',
    { kind: 'perm', permission: 'faq.edit' },
    {
      summary: 'Update or reorder a FAQ entry',
      request: { body: FaqUpdateBody },
      responses: { 200: { description: 'The entry', schema: FaqEntry } },
    },
    async (req, res) => {
      const body = parseBody(FaqUpdateBody, req);
      res.json(found(await updateFaq(deps.pool, body, authOf(req).userId), body.id));
    },
  );
  route(
    'delete',
    '/faq',
    { kind: 'perm', permission: 'faq.edit' },
    {
      summary: 'Delete a FAQ entry',
      request: { body: FaqDeleteBody },
      responses: { 200: { description: 'The deleted entry', schema: FaqEntry } },
    },
    async (req, res) => {
      const { id } = parseBody(FaqDeleteBody, req);
      res.json(found(await deleteFaq(deps.pool, id, authOf(req).userId), id));
    },
  );
  return router;
};
