import express, { type Express, type Router } from 'express';
import type { AuthKit } from '../auth/auth-kit.js';
import type { Ledger } from '../commands/ledger.types.js';
import type pg from 'pg';
import type { EventStore } from '../infra/event-store/event-store.port.js';
import type { Logger } from '../infra/logger.js';
import type { Redis } from '../infra/redis.js';
import { errorHandler, notFound, requestContext } from './http-errors.js';
import { accountRoutes } from './account.routes.js';
import { ownGamblingLimitsRoutes } from './gambling-limits.routes.js';
import { createLimits } from '../commands/limits.js';
import { ledgerPositionHeader } from './ledger-position.js';
import { authRoutes } from './auth.routes.js';
import { inputPolicy } from './input-policy.middleware.js';
import { dependencyChecks, healthRoutes } from './health.routes.js';
import { HEALTH_DOCS, PUBLIC_INFO } from './api-docs.js';
import { docsRoutes, once, openApiDocument, routeDocsOf, SERVED_DOCUMENTS, type DocumentedRoute, type ServedDocuments } from './openapi.js';
import { securityHeaders } from './security-headers.js';

export type AppDeps = Readonly<{
  logger: Logger;
  pool: pg.Pool;
  store: EventStore;
  redis?: Redis | undefined;
  /** Proxies whose X-Forwarded-For hops are trusted for req.ip (express "trust proxy"). */
  trustProxy?: readonly string[];
  bodyLimit?: string;
  healthTimeoutMs?: number;
  /** Strict-Transport-Security on every answer: on outside local development (APP_ENV != local). */
  hsts?: boolean;
}>;

/** What every app starts with: no x-powered-by, security headers, request id, request log, JSON bodies, GET /health. */
export const createBaseApp = (deps: AppDeps): Express => {
  const app = express();
  app.disable('x-powered-by');
  app.use(securityHeaders({ hsts: deps.hsts ?? false }));
  app.set('trust proxy', deps.trustProxy && deps.trustProxy.length > 0 ? [...deps.trustProxy] : false);
  app.use(requestContext(deps.logger), ledgerPositionHeader(deps.store));
  app.use(express.json({ limit: deps.bodyLimit ?? '100kb' }));
  app.use(inputPolicy);
  app.use(
    healthRoutes({
      checks: dependencyChecks(deps),
      logger: deps.logger,
      ...(deps.healthTimeoutMs ? { timeoutMs: deps.healthTimeoutMs } : {}),
    }),
  );
  return app;
};

/** What every app ends with: 404 for unknown routes, then the one error handler. */
export const finishApp = (app: Express, logger: Logger): Express => {
  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
};

export type PublicAppDeps = AppDeps &
  Readonly<{
    /** The authentication lifecycle; without it the public API serves only /health. */
    auth?: Readonly<{ kit: AuthKit; ledger: Pick<Ledger, 'balances'> }>;
    /** Further routers (identity-provider redirect flows). */
    routers?: readonly Router[];
  }>;

/** The public API (`PUBLIC_PORT`): the authentication lifecycle and the signed-in user's account. */
export const createPublicApp = (deps: PublicAppDeps): Express => {
  const app = createBaseApp(deps);
  const routers = [
    ...(deps.auth
      ? [
          authRoutes(deps.auth.kit),
          accountRoutes(deps.auth.kit, deps.auth.ledger),
          ownGamblingLimitsRoutes(deps.auth.kit, createLimits({ store: deps.store, pool: deps.pool })),
        ]
      : []),
    ...(deps.routers ?? []),
  ];
  for (const router of routers) app.use(router);
  const health: DocumentedRoute = { method: 'get', path: '/health', access: { kind: 'none' }, docs: HEALTH_DOCS };
  const document = once(() => openApiDocument([health, ...routers.flatMap(routeDocsOf)], PUBLIC_INFO));
  app.locals[SERVED_DOCUMENTS] = { '/docs/openapi.json': document } satisfies ServedDocuments;
  app.use(docsRoutes(document, 'Public API'));
  return finishApp(app, deps.logger);
};
