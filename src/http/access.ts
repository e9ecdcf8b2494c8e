import type { RequestHandler, Router } from 'express';
import type { ZodObject, ZodType } from 'zod';
import type { Authenticator } from '../auth/authenticator.js';
import { holdsPermission, isStaff, type Permission } from '../domain/user/permissions.js';
import { authenticateRequest } from './auth.adapter.js';
import { authError } from './http-errors.js';
import { ERROR_STATUS, type ErrorClass } from '../shared/app-error.js';

/** The rule one value of a query parameter needs (see `by-query`). */
export type QueryValueAccess = Readonly<{ kind: 'perm'; permission: Permission }> | Readonly<{ kind: 'superadmin' }>;

export type Access =
  | Readonly<{ kind: 'none' }>
  | Readonly<{ kind: 'auth' }>
  | Readonly<{ kind: 'perm'; permission: Permission }>
  | Readonly<{ kind: 'superadmin' }>
  /** One route serving several lists (an export's `kind`): each value needs what its own list needs. */
  | Readonly<{ kind: 'by-query'; param: string; rules: Readonly<Record<string, QueryValueAccess>> }>;

/** The rule that applies to this request: a `by-query` rule by its parameter's value (an unknown value: the route's 400). */
const ruleFor = (rule: Access, query: unknown): Access | undefined => {
  if (rule.kind !== 'by-query') return rule;
  const value = (query as Record<string, unknown> | undefined)?.[rule.param];
  return typeof value === 'string' && Object.hasOwn(rule.rules, value) ? rule.rules[value] : undefined;
};

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A route's OpenAPI description, beside its access; `addition`: not in the spec's Endpoints table (`x-addition`). */
export type RouteDocs = Readonly<{
  summary: string;
  tag?: string;
  description?: string;
  request?: Readonly<{ params?: ZodObject; query?: ZodObject; body?: ZodType; headers?: ZodObject }>;
  /** The body's media type when it is not JSON (a CSV upload: `text/csv`). */
  bodyType?: string;
  responses: Readonly<Record<number, Readonly<{ description: string; schema?: ZodType }>>>;
  /**
   * Error codes this route answers beyond the generic ones, by status (its 409 and 422 codes, the 404 that names what was
   * not found). The generic statuses (400, 401/403 by access, 404 with path parameters, 413, 500, 503) are derived.
   */
  errors?: Readonly<Partial<Record<number, readonly string[]>>>;
  addition?: true;
  deprecated?: true;
  /** A consistent read of these read models (see consistentRead): documents its position and consistency parameters. */
  readModels?: readonly string[];
}>;

export type RegisteredRoute = Readonly<{ method: HttpMethod; path: string; access: Access; docs?: RouteDocs }>;

/** Every back-office route with its access, in registration order (the access-matrix test enumerates it). */
export type AccessRegistry = RegisteredRoute[];

/** `none` lets anyone in; the rest need an Admin or SuperAdmin (from live state), `perm` also the permission, `superadmin` the role. */
export const access =
  (authenticator: Authenticator, rule: Access): RequestHandler =>
  async (req, _res, next) => {
    if (rule.kind === 'none') return next();
    try {
      const auth = await authenticateRequest(authenticator, req, 'admin');
      req.auth = auth;
      if (!isStaff(auth.roles)) throw authError('forbidden', 'Back-office access needs the Admin or SuperAdmin role');
      const applied = ruleFor(rule, req.query);
      if (applied?.kind === 'perm' && !holdsPermission(auth, applied.permission))
        throw authError('forbidden', `Missing permission ${applied.permission}`);
      if (applied?.kind === 'superadmin' && !auth.roles.includes('SuperAdmin')) throw authError('forbidden', 'SuperAdmin only');
      next();
    } catch (error) {
      next(error);
    }
  };

export type DeclaredErrors = NonNullable<RouteDocs['errors']>;

/** Both declarations of error codes, status by status. */
export const mergeErrors = (a: DeclaredErrors | undefined, b: DeclaredErrors | undefined): DeclaredErrors => {
  const merged: Record<number, string[]> = {};
  for (const table of [a, b])
    for (const [status, codes] of Object.entries(table ?? {}))
      merged[Number(status)] = [...new Set([...(merged[Number(status)] ?? []), ...codes!])];
  return merged;
};

/** A refusal table (class, code, ...) as the codes it answers by status: `{404: ['USER_NOT_FOUND'], 409: [...]}`. */
export const errorCodesOf = (table: Readonly<Record<string, readonly [ErrorClass, string, ...unknown[]]>>): DeclaredErrors => {
  const codes: Record<number, string[]> = {};
  for (const [errorClass, code] of Object.values(table)) (codes[ERROR_STATUS[errorClass]] ??= []).push(code);
  return mergeErrors(codes, undefined);
};

/**
 * Declares a route, its guard (run first) and its documentation, recorded in the registry the OpenAPI document comes from.
 * `errors`: codes every command (non-GET route) of this router may answer beyond the derived ones (its domain's refusals).
 */
export const guardedRoutes =
  (router: Router, authenticator: Authenticator, registry: AccessRegistry, prefix = '', errors?: DeclaredErrors) =>
  (method: HttpMethod, path: string, rule: Access, ...rest: [RouteDocs, ...RequestHandler[]] | RequestHandler[]): void => {
    const [first, ...others] = rest;
    const given = typeof first === 'function' ? undefined : first;
    const docs = given && errors && method !== 'get' ? { ...given, errors: mergeErrors(errors, given.errors) } : given;
    const handlers = (typeof first === 'function' ? rest : others) as RequestHandler[];
    registry.push({ method, path: `${prefix}${path}`, access: rule, ...(docs ? { docs } : {}) });
    router[method](path, access(authenticator, rule), ...handlers);
  };
