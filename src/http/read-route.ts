import type { Request, RequestHandler, Response } from 'express';
import type { ZodType } from 'zod';
import { type Access, type guardedRoutes, type HttpMethod, type RouteDocs } from './access.js';
import { consistentRead } from './ledger-position.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { zodToHttp } from './http-errors.js';
import { nestedQuery } from './filters.js';
import { parseBody, parseParams, parseQuery, type z } from './validate.js';
import type { Permission } from '../domain/user/permissions.js';
import type { Listed } from '../read-models/list-page.js';

/** Where a route's input is read from, documented under the same key. */
export type Input<T> = Readonly<{ request: NonNullable<RouteDocs['request']>; parse: (req: Request) => T }>;

const PARSERS = { query: parseQuery, body: parseBody, params: parseParams } as const;

export const input = <S extends z.ZodObject>(at: keyof typeof PARSERS, schema: S): Input<z.output<S>> => ({
  request: { [at]: schema },
  parse: (req) => PARSERS[at](schema, req),
});

/** Query strings with nested keys (`where[status]=SETTLED`) or a JSON `where`, validated like parseQuery. */
export const nested = <S extends z.ZodObject>(schema: S): Input<z.output<S>> => ({
  request: { query: schema },
  parse: (req) => {
    const result = schema.safeParse(nestedQuery(req.originalUrl));
    if (!result.success) throw zodToHttp(result.error, 'query');
    return result.data;
  },
});

/** How the answer is documented and sent. */
export type Output<R> = Readonly<{ responses: RouteDocs['responses']; send: (res: Response, answer: R) => void }>;

/** The page as the body, where its total came from in `x-total-source`; `declared201`: the spec lists a 201 never sent. */
export const page = (description: string, schema: ZodType, declared201 = false): Output<Listed<unknown>> => ({
  responses: declared201
    ? { 200: { description, schema }, 201: { description: 'Declared by the spec; not sent' } }
    : { 200: { description, schema } },
  send: (res, { page, totalSource }) => {
    res.setHeader('x-total-source', totalSource);
    res.json(page);
  },
});

export const json = (status: 200 | 201, description: string, schema: ZodType): Output<unknown> => ({
  responses: { [status]: { description, schema } },
  send: (res, answer) => void res.status(status).json(answer),
});

export type Pool = BackOfficeDeps['pool'];
export type Route = ReturnType<typeof guardedRoutes>;

/** A read route answered by a read-model query; `reads`: the read models a consistent read waits for (none: at once). */
export const read =
  <T, R>(
    method: HttpMethod,
    path: string,
    rule: Access,
    reads: readonly string[],
    input: Input<T>,
    answer: (pool: Pool, input: T) => Promise<R>,
    docs: Readonly<{ summary: string; output: Output<R> }>,
  ) =>
  (route: Route, deps: BackOfficeDeps): void => {
    const handler: RequestHandler = async (req, res) => docs.output.send(res, await answer(deps.pool, input.parse(req)));
    const documented: RouteDocs = { summary: docs.summary, request: input.request, responses: docs.output.responses };
    if (reads.length === 0) return route(method, path, rule, documented, handler);
    route(method, path, rule, { ...documented, readModels: reads }, consistentRead(deps.reads, reads), handler);
  };

export const perm = (permission: Permission): Access => ({ kind: 'perm', permission });
export const SUPERADMIN: Access = { kind: 'superadmin' };
