import type { ZodType } from 'zod';
import type { AdminOperation } from '../commands/admin-operations/admin-operation.js';
import type { guardedRoutes, RouteDocs } from './access.js';
import { authOf } from './auth.adapter.js';
import { parseBody } from './validate.js';

type Answer = Readonly<{ description: string; schema: ZodType }>;

/** POST of an admin operation: its permission, its schema on the body, the acting admin's id, 201 with its answer. */
export const adminOperationRoute = <D, S extends ZodType, R>(
  route: ReturnType<typeof guardedRoutes>,
  path: string,
  operation: AdminOperation<D, S, R>,
  deps: D,
  docs: Readonly<{ summary: string; body: ZodType; answer: Answer; errors?: RouteDocs['errors'] }>,
): void =>
  route(
    'post',
    path,
    { kind: 'perm', permission: operation.permission },
    {
      summary: docs.summary,
      request: { body: docs.body },
      responses: { 201: docs.answer },
      ...(docs.errors ? { errors: docs.errors } : {}),
    },
    async (req, res) => {
      res.status(201).json(await operation.run(deps, parseBody(operation.schema, req), authOf(req).userId));
    },
  );
