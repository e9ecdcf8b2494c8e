import express, { Router } from 'express';
import { isLeft } from 'fp-ts/lib/Either.js';
import { guardedRoutes } from '../../http/access.js';
import { authOf } from '../../http/auth.adapter.js';
import type { BackOfficeDeps } from '../../http/back-office.deps.js';
import { HttpError } from '../../http/http-errors.js';
import { parseBody, parseParams, parseQuery, z } from '../../http/validate.js';
import { itemsPage, listRuns, runById } from './reconciliation.queries.js';
import type { Reconciliations, ResolveError, UploadError } from './reconciliation.use-case.js';
import {
  ItemParams,
  ItemsQuery,
  ItemsView,
  ItemView,
  ResolveBody,
  RunParams,
  RunsQuery,
  RunsView,
  RunView,
  UploadQuery,
} from './reconciliation.schemas.js';

/** The largest statement an upload takes (a 100,000-line statement is about 15 MB). */
export const STATEMENT_LIMIT = '64mb';
const VIEW = { kind: 'perm', permission: 'reconciliation.view' } as const;
const MANAGE = { kind: 'perm', permission: 'reconciliation.manage' } as const;

const uploadError = (e: UploadError): HttpError => {
  switch (e._tag) {
    case 'UnknownProvider':
      return new HttpError(400, 'VALIDATION_FAILED', `query.provider: no statement mapping for provider ${e.providerId}`, [
        { field: 'query.provider', message: `no statement mapping for provider ${e.providerId}` },
      ]);
    case 'RangeInvalid':
      return new HttpError(400, 'VALIDATION_FAILED', `query.to: ${e.message}`, [{ field: 'query.to', message: e.message }]);
    case 'StatementNotUtf8':
      return new HttpError(400, 'STATEMENT_MALFORMED', 'The statement is not UTF-8 text; nothing was kept', [
        { field: 'body', message: 'must be UTF-8' },
      ]);
    case 'StatementMalformed': {
      const [first] = e.problems;
      return new HttpError(
        400,
        'STATEMENT_MALFORMED',
        `Line ${first!.line}, ${first!.field}: ${first!.message}; nothing of this statement was kept`,
        e.problems.map((p) => ({ field: `line ${p.line}: ${p.field}`, message: p.message })),
      );
    }
    case 'StatementAlreadyReconciled':
      return new HttpError(409, 'STATEMENT_ALREADY_RECONCILED', `This statement was reconciled already: run ${e.runId}`, [
        { field: 'runId', message: e.runId },
      ]);
  }
};

const resolveError = (e: ResolveError): HttpError => {
  switch (e._tag) {
    case 'ItemNotFound':
      return new HttpError(404, 'RECONCILIATION_ITEM_NOT_FOUND', `Run ${e.runId} has no item ${e.itemNo}`);
    case 'ItemNotABreak':
      return new HttpError(409, 'RECONCILIATION_ITEM_NOT_A_BREAK', `Item ${e.itemNo} matched: there is nothing to resolve`);
    case 'ItemAlreadyResolved':
      return new HttpError(
        409,
        'RECONCILIATION_ITEM_ALREADY_RESOLVED',
        `Item ${e.itemNo} was resolved by ${e.resolution.resolvedBy.username || e.resolution.resolvedBy.id} at ${e.resolution.resolvedAt}`,
      );
  }
};

const csvBody = express.raw({ type: () => true, limit: STATEMENT_LIMIT });

/** Reconciliation with payment providers (docs/reconciliation.md): upload a statement, read runs and their items, resolve a break. */
export const reconciliationRoutes = (deps: BackOfficeDeps & { reconciliations: Reconciliations }): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  const { pool, reconciliations } = deps;
  const tag = 'finance';

  route(
    'post',
    '/finance/reconciliations',
    MANAGE,
    {
      summary: "Upload a provider's statement: it is reconciled with the ledger's deposits and withdrawals and stored as a run",
      tag,
      addition: true,
      description:
        'The body is the statement file itself, `Content-Type: text/csv` (RFC 4180, UTF-8, header row first, the provider\u2019s ' +
        'columns); provider and range are query parameters. A malformed statement is 400 STATEMENT_MALFORMED naming each line and ' +
        'column (the first 20) and nothing is kept. A statement whose SHA-256 matches a stored run is 409 STATEMENT_ALREADY_RECONCILED ' +
        'naming that run. Audited as `reconciliation.upload`.',
      request: { query: UploadQuery, body: z.string().openapi({ description: 'The statement (CSV)' }) },
      bodyType: 'text/csv',
      responses: { 201: { description: 'The run, with its totals', schema: RunView } },
      errors: {
        400: ['VALIDATION_FAILED', 'STATEMENT_MALFORMED'],
        409: ['STATEMENT_ALREADY_RECONCILED'],
        415: ['UNSUPPORTED_MEDIA_TYPE'],
      },
    },
    (req, _res, next) => {
      parseQuery(UploadQuery, req);
      if (!req.is('text/csv')) throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The statement is sent as Content-Type: text/csv');
      next();
    },
    csvBody,
    async (req, res) => {
      const q = parseQuery(UploadQuery, req);
      const statement = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const run = await reconciliations.upload({
        providerId: q.provider,
        from: q.from,
        to: q.to,
        fileName: q.fileName ?? null,
        statement,
        adminUserId: authOf(req).userId,
      });
      if (isLeft(run)) throw uploadError(run.left);
      res.status(201).json(run.right);
    },
  );

  route(
    'get',
    '/finance/reconciliations',
    VIEW,
    {
      summary: 'Reconciliation runs, newest first',
      tag,
      addition: true,
      request: { query: RunsQuery },
      responses: { 200: { description: 'A page of runs (their totals are on each run)', schema: RunsView } },
    },
    async (req, res) => {
      const q = parseQuery(RunsQuery, req);
      res.json({ ...(await listRuns(pool, { page: q.page, limit: q.limit, providerId: q.provider })), page: q.page, limit: q.limit });
    },
  );

  route(
    'get',
    '/finance/reconciliations/:id',
    VIEW,
    {
      summary: 'A reconciliation run with its totals per currency, direction and kind',
      tag,
      addition: true,
      request: { params: RunParams },
      responses: { 200: { description: 'The run', schema: RunView } },
    },
    async (req, res) => {
      const { id } = parseParams(RunParams, req);
      const run = await runById(pool, id);
      if (!run) throw new HttpError(404, 'RECONCILIATION_NOT_FOUND', `No reconciliation run ${id}`);
      res.json(run);
    },
  );

  route(
    'get',
    '/finance/reconciliations/:id/items',
    VIEW,
    {
      summary: "A page of a run's items, of one kind or every break",
      tag,
      addition: true,
      request: { params: RunParams, query: ItemsQuery },
      responses: { 200: { description: 'Items in item order', schema: ItemsView } },
    },
    async (req, res) => {
      const { id } = parseParams(RunParams, req);
      const q = parseQuery(ItemsQuery, req);
      if (!(await runById(pool, id))) throw new HttpError(404, 'RECONCILIATION_NOT_FOUND', `No reconciliation run ${id}`);
      res.json({ ...(await itemsPage(pool, id, q)), page: q.page, limit: q.limit });
    },
  );

  route(
    'post',
    '/finance/reconciliations/:id/items/:itemNo/resolve',
    MANAGE,
    {
      summary: 'Resolve a break with a note (once); the ledger is not changed',
      tag,
      addition: true,
      description:
        'A matched item is 409 RECONCILIATION_ITEM_NOT_A_BREAK; a resolved one 409 RECONCILIATION_ITEM_ALREADY_RESOLVED. ' +
        'Audited as `reconciliation.resolve` with the note.',
      request: { params: ItemParams, body: ResolveBody },
      responses: { 201: { description: 'The item with its resolution', schema: ItemView } },
      errors: {
        404: ['RECONCILIATION_NOT_FOUND', 'RECONCILIATION_ITEM_NOT_FOUND'],
        409: ['RECONCILIATION_ITEM_NOT_A_BREAK', 'RECONCILIATION_ITEM_ALREADY_RESOLVED'],
      },
    },
    async (req, res) => {
      const { id, itemNo } = parseParams(ItemParams, req);
      const { note } = parseBody(ResolveBody, req);
      const resolved = await reconciliations.resolve({ runId: id, itemNo, note, adminUserId: authOf(req).userId });
      if (isLeft(resolved)) throw resolveError(resolved.left);
      res.status(201).json(resolved.right);
    },
  );
  return router;
};
