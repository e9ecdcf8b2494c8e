import type { Express } from 'express';
import type { Ledger } from '../commands/ledger.types.js';
import { internalRoutes } from './internal.routes.js';
import { createBaseApp, finishApp, type AppDeps } from './public-app.js';

export type AdminAppDeps = AppDeps & Readonly<{
  ledger: Ledger;
  /** Unset: the internal ledger API is off and `/internal/...` answers 404. */
  internalApiToken?: string | undefined;
}>;

/** The back-office API (`ADMIN_PORT`), with the internal ledger API under `/internal`. */
export const createAdminApp = (deps: AdminAppDeps): Express => {
  const app = createBaseApp(deps);
  if (deps.internalApiToken) app.use('/internal', internalRoutes({ ledger: deps.ledger, serviceToken: deps.internalApiToken }));
  return finishApp(app, deps.logger);
};
