import type { RequestHandler, Router } from 'express';
import type { ZodObject, ZodType } from 'zod';
import type { Authenticator } from '../auth/authenticator.js';
import { holdsPermission, isStaff, type Permission } from '../domain/user/permissions.js';
import { authenticateRequest } from './auth.adapter.js';
import { authError } from './errors.js';

/** How a back-office route is guarded (decisions.md, Access). */
export type Access =
  | Readonly<{ kind: 'none' }>
  | Readonly<{ kind: 'auth' }>
  | Readonly<{ kind: 'perm'; permission: Permission }>
  | Readonly<{ kind: 'superadmin' }>;

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * The OpenAPI description of a route, declared beside its access with the schemas the handler parses.
 * `addition`: not in the spec's Endpoints table (documented as `x-addition`).
 */
export type RouteDocs = Readonly<{
  summary: string;
  tag?: string;
  description?: string;
  request?: Readonly<{ params?: ZodObject; query?: ZodObject; body?: ZodType; headers?: ZodObject }>;
  responses: Readonly<Record<number, Readonly<{ description: string; schema?: ZodType }>>>;
  addition?: true;
  deprecated?: true;
  /** A consistent read of these read models (see consistentRead): documents its position and consistency parameters. */
  readModels?: readonly string[];
}>;

export type RegisteredRoute = Readonly<{ method: HttpMethod; path: string; access: Access; docs?: RouteDocs }>;

/** Every back-office route with its access, in registration order (the access-matrix test enumerates it). */
export type AccessRegistry = RegisteredRoute[];

/**
 * The guard: `none` lets anyone in; every other kind needs an authenticated Admin or SuperAdmin,
 * `perm` also the permission (SuperAdmin holds all), `superadmin` the SuperAdmin role.
 * Roles and permissions come from live state through the authenticator.
 */
export const access =
  (authenticator: Authenticator, rule: Access): RequestHandler =>
  async (req, _res, next) => {
    if (rule.kind === 'none') return next();
    try {
      const auth = await authenticateRequest(authenticator, req, 'admin');
      req.auth = auth;
      if (!isStaff(auth.roles)) throw authError('forbidden', 'Back-office access needs the Admin or SuperAdmin role');
      if (rule.kind === 'perm' && !holdsPermission(auth, rule.permission))
        throw authError('forbidden', `Missing permission ${rule.permission}`);
      if (rule.kind === 'superadmin' && !auth.roles.includes('SuperAdmin')) throw authError('forbidden', 'SuperAdmin only');
      next();
    } catch (error) {
      next(error);
    }
  };

/**
 * Declares a route, its access and (optionally, before the handlers) its documentation in one place:
 * the guard runs first, the route is recorded in the registry the OpenAPI document is generated from.
 */
export const guardedRoutes =
  (router: Router, authenticator: Authenticator, registry: AccessRegistry, prefix = '') =>
  (method: HttpMethod, path: string, rule: Access, ...rest: [RouteDocs, ...RequestHandler[]] | RequestHandler[]): void => {
    const [first, ...others] = rest;
    const docs = typeof first === 'function' ? undefined : first;
    const handlers = (typeof first === 'function' ? rest : others) as RequestHandler[];
    registry.push({ method, path: `${prefix}${path}`, access: rule, ...(docs ? { docs } : {}) });
    router[method](path, access(authenticator, rule), ...handlers);
  };
