import type { Express } from 'express';
import type { AuthKit } from '../auth/auth-kit.js';
import type { AccessRegistry } from './access.js';
import { adminUserRoutes } from './admin-users.routes.js';
import { affiliatesRoutes } from './affiliates.routes.js';
import { chatAdminRoutes } from './chat-admin.routes.js';
import { consoleRoutes } from './console.routes.js';
import { configRoutes } from './config.routes.js';
import { faqRoutes } from './faq.routes.js';
import { apiKeysRoutes } from './api-keys.routes.js';
import { limitsRoutes } from './limits.routes.js';
import { gamblingLimitsRoutes } from './gambling-limits.routes.js';
import { amlRoutes } from './aml.routes.js';
import { createAml, type Aml } from '../compliance/aml.js';
import { amlSettingsFrom } from '../compliance/aml.settings.js';
import { createLimits } from '../commands/limits.js';
import { adminUsersListRoutes } from './admin-users-list.routes.js';
import type { Ledger } from '../commands/ledger.types.js';
import type { ServerEventBus } from '../infra/bus.js';
import { internalDocumented, internalRoutes, internalRouteTable } from './internal.routes.js';
import { inFrontOf, leanInternalPath } from './internal.lean.js';
import { leaderboardsRoutes } from './leaderboards.routes.js';
import { ledgerListsRoutes } from './ledger-lists.routes.js';
import { moneyRoutes } from '../wallet/wallet.routes.js';
import { auditRoutes } from './audit.routes.js';
import { createPeriods, type Periods } from '../periods/close-period.use-case.js';
import { periodsRoutes } from '../periods/periods.routes.js';
import { financeReportsRoutes } from '../finance/reports/reports.routes.js';
import { createReconciliations, type Reconciliations } from '../finance/reconciliation/reconciliation.use-case.js';
import { monitorsRoutes } from '../monitors/monitors.routes.js';
import { reconciliationRoutes } from '../finance/reconciliation/reconciliation.routes.js';
import { exportRoutes } from './export.routes.js';
import type { ExportLimits } from './export-slots.js';
import { adminAuditRoutes } from './admin-audit.routes.js';
import { metricsRoutes } from './metrics.routes.js';
import type { Metrics } from '../infra/metrics.js';
import { BACK_OFFICE_INFO, HEALTH_DOCS, INTERNAL_INFO } from './api-docs.js';
import { docsRoutes, once, openApiDocument, SERVED_DOCUMENTS, type ServedDocuments } from './openapi.js';
import { createBaseApp, finishApp, type AppDeps } from './public-app.js';
import { erasureRoutes, type ErasureSettings } from '../erasure/erasure.routes.js';
import { createReadModelWaiter, type LocalProgress } from '../projections/read-model-waiter.js';

export type AdminAppDeps = AppDeps &
  Readonly<{
    ledger: Ledger;
    /** Unset: the internal ledger API is off and `/internal/...` answers 404. */
    internalApiToken?: string | undefined;
    /** Back-office routes need it; without it only /health and /internal are served. */
    auth?: AuthKit;
    /** Filled with every back-office route and its access (tests enumerate it). */
    accessRegistry?: AccessRegistry;
    /** Bounds on concurrent and slow downloads (GET /accounting/export); the defaults when unset. */
    exportLimits?: ExportLimits | undefined;
    /** Server events for sockets (a chat message deleted by POST /chat/admin-action); unset: nothing is pushed. */
    bus?: ServerEventBus | undefined;
    /** Set: GET /metrics serves this registry (Prometheus text), behind `metricsToken` when that is set. */
    metrics?: Metrics;
    metricsToken?: string | undefined;
    /** A projector in this process: consistent reads learn at once when its read models move. */
    localProjector?: LocalProgress | undefined;
    /** Tells projectors in other processes that a read waits on them. */
    askReadModels?: () => void;
    /** How long a consistent back-office read waits for its read models (READ_CONSISTENCY_TIMEOUT_MS). */
    readConsistencyTimeoutMs?: number;
    /** The admin console's build served at /admin (default `console/dist`). */
    consoleDist?: string;
    /** AML flags (the same the ledger raises); unset: flags with the default thresholds on this store. */
    aml?: Aml;
    /** The books' periods and their close; unset: a UTC calendar of months, reports unsealed. */
    periods?: Periods;
    /** Reconciliation with payment providers; unset: amounts must agree exactly (no tolerance). */
    reconciliations?: Reconciliations;
    /** The retention rule of erasures (ERASURE_RETENTION_YEARS, default 5) and, in tests, their clock. */
    erasure?: ErasureSettings;
  }>;

/** The back-office API (`ADMIN_PORT`), with the internal ledger API under `/internal`. */
export const createAdminApp = (deps: AdminAppDeps): Express => {
  const app = createBaseApp(deps);
  const registry = deps.accessRegistry ?? [];
  registry.push({ method: 'get', path: '/health', access: { kind: 'none' }, docs: HEALTH_DOCS });
  if (deps.metrics) app.use(metricsRoutes({ metrics: deps.metrics, token: deps.metricsToken }));
  const documents: Record<string, () => Record<string, unknown>> = {};
  if (deps.internalApiToken) {
    const serviceToken = deps.internalApiToken;
    const routes = internalRouteTable(deps.ledger);
    const document = once(() => openApiDocument(internalDocumented(routes), INTERNAL_INFO));
    documents['/internal/openapi.json'] = document;
    app.use('/internal', internalRoutes({ routes, serviceToken, document }));
    inFrontOf(
      app,
      leanInternalPath({
        routes,
        mount: '/internal',
        serviceToken,
        logger: deps.logger,
        store: deps.store,
        bodyLimit: deps.bodyLimit,
        hsts: deps.hsts,
      }),
    );
  }
  if (deps.auth) {
    const reads = {
      waiter: createReadModelWaiter({ pool: deps.pool, store: deps.store, local: deps.localProjector, askOthers: deps.askReadModels }),
      timeoutMs: deps.readConsistencyTimeoutMs ?? 2_000,
    };
    app.use(consoleRoutes(deps.auth, deps.consoleDist));
    const backOffice = { pool: deps.pool, store: deps.store, ledger: deps.ledger, auth: deps.auth, registry, reads };
    // Fixed paths (/user/stats/transactions) before parameterised ones (/user/:id).
    app.use(ledgerListsRoutes(backOffice), moneyRoutes(backOffice), leaderboardsRoutes(backOffice));
    app.use(adminUsersListRoutes(backOffice));
    app.use(limitsRoutes(backOffice), apiKeysRoutes(backOffice));
    app.use(gamblingLimitsRoutes(backOffice, createLimits({ store: deps.store, pool: deps.pool })));
    app.use(amlRoutes(backOffice, deps.aml ?? createAml({ store: deps.store, pool: deps.pool, settings: amlSettingsFrom({}) })));
    app.use(
      affiliatesRoutes(backOffice),
      configRoutes(backOffice),
      faqRoutes(backOffice),
      chatAdminRoutes({ ...backOffice, bus: deps.bus, logger: deps.logger }),
    );
    const periods = deps.periods ?? createPeriods({ store: deps.store, pool: deps.pool, calendar: { timeZone: 'UTC', unit: 'month' } });
    app.use(periodsRoutes({ ...backOffice, periods }), financeReportsRoutes({ ...backOffice, calendar: periods.calendar }));
    const reconciliations = deps.reconciliations ?? createReconciliations({ pool: deps.pool, tolerances: new Map() });
    app.use(reconciliationRoutes({ ...backOffice, reconciliations }));
    app.use(monitorsRoutes(backOffice));
    app.use(erasureRoutes({ ...backOffice, erasure: deps.erasure ?? { retentionYears: 5 } }));
    app.use(auditRoutes(backOffice), exportRoutes({ ...backOffice, exportLimits: deps.exportLimits }), adminAuditRoutes(backOffice));
    app.use(
      adminUserRoutes({
        users: deps.auth.users,
        pool: deps.pool,
        store: deps.store,
        authenticator: deps.auth.authenticator,
        registry,
        reads,
      }),
    );
  }
  const backOffice = once(() => openApiDocument(registry, BACK_OFFICE_INFO));
  documents['/docs/openapi.json'] = backOffice;
  app.locals[SERVED_DOCUMENTS] = documents satisfies ServedDocuments;
  const others = deps.internalApiToken ? [{ name: INTERNAL_INFO.title, url: '/internal/openapi.json' }] : [];
  app.use(docsRoutes(backOffice, BACK_OFFICE_INFO.title, others));
  return finishApp(app, deps.logger);
};

/**
 * GET /metrics and GET /health alone, for a process without admin-api (METRICS_PORT): a scaled-out
 * gateway's sockets and throttled messages, a projector's lag, each scraped where they are counted.
 */
export const createMetricsApp = (deps: AppDeps & Readonly<{ metrics: Metrics; metricsToken?: string | undefined }>): Express => {
  const app = createBaseApp(deps);
  app.use(metricsRoutes({ metrics: deps.metrics, token: deps.metricsToken }));
  return finishApp(app, deps.logger);
};
