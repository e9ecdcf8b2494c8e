import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createAuthKit } from './auth/auth-kit.js';
import { bootstrapSuperAdmin } from './auth/bootstrap.js';
import { loadSymmetricKey } from './infra/secrets.js';
import { loadKeys } from './auth/sessions.js';
import { createLedger } from './commands/ledger.js';
import { amlHooks, createAml } from './compliance/aml.js';
import { amlSettingsFrom } from './compliance/aml.settings.js';
import { createLimits } from './commands/limits.js';
import { createUsers } from './commands/users.js';
import { createAdminApp, createMetricsApp } from './http/admin-app.js';
import { createPublicApp } from './http/public-app.js';
import { identityProviderRoutes } from './http/identity-providers/wiring.js';
import { createRates } from './commands/rates.js';
import { createLocalBus, createRedisBus } from './infra/bus.js';
import { startLeaderboardScheduler } from './leaderboards/leaderboard.scheduler.js';
import { allowedOrigins, ConfigError, loadConfig, type Config } from './infra/config.js';
import { startEmbeddedPostgres, StartRefused } from './infra/embedded-postgres.js';
import { createNotifier } from './infra/event-store/postgres/postgres.wake-up.js';
import { createWakeSignal } from './infra/follow/wake-signal.js';
import { createLogger, type Logger } from './infra/logger.js';
import { createPool } from './infra/pg.js';
import { closeRedis, createRedis } from './infra/redis.js';
import { allProjections } from './read-models/all-projections.js';
import { createPeriods } from './periods/close-period.use-case.js';
import { createReconciliations } from './finance/reconciliation/reconciliation.use-case.js';
import { parseTolerances } from './finance/reconciliation/tolerances.js';
import { ensureCalendar } from './periods/periods.queries.js';
import { financeReportsProjection } from './finance/reports/finance-reports.projection.js';
import type { LocalProgress } from './projections/read-model-waiter.js';
import { openEventStore } from './infra/event-store/open-event-store.js';
import { startFollowers } from './followers/followers.js';
import { startDeliveryWorker } from './monitors/delivery.worker.js';
import { startFollowersThread } from './followers/followers.thread.js';
import { migrateAll } from './schema.js';
import { startGateway } from './realtime/gateway.js';
import { adminHandlers } from './realtime/handlers/admin.js';
import { chatHandlers } from './realtime/handlers/chat.js';
import { liveHandlers } from './realtime/handlers/live.js';
import { notificationHandlers } from './realtime/handlers/notifications.js';
import { replayUserEvents } from './realtime/socket-replay.js';
import { validateTrustProxy } from './realtime/protection/index.js';
import { SEAL_KEY_NAME } from './audit/cli/ledger-cli.js';
import { createMetrics, instrumentStore } from './infra/metrics.js';
import { instrumentLedger } from './commands/ledger.metrics.js';
import { projectionReadings } from './projections/projection-status.js';
import { MFA_KEY_NAME, mayGenerateKeys, missingSecrets } from './infra/required-secrets.js';
import { trackAppends } from './infra/event-store/append-tracker.js';

/** Resources are released in reverse order of acquisition: servers first, the database last. */
type Cleanup = Readonly<{ name: string; run: () => Promise<void> }>;

const SHUTDOWN_TIMEOUT_MS = 15_000;

const listen = (app: Express, port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = app.listen(port, (error?: Error) => (error ? reject(error) : resolve(server)));
  });

const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // Requests in flight get a moment; keep-alive sockets do not hold shutdown hostage.
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });

const portOf = (server: Server): number => (server.address() as AddressInfo).port;

/** Builds what the configured roles need and starts them; every resource is registered for shutdown as soon as it exists. */
const start = async (config: Config, logger: Logger, cleanups: Cleanup[], stopping: () => boolean): Promise<void> => {
  const roles = config.roles;
  validateTrustProxy(config.trustProxy); // a wrong TRUST_PROXY entry stops the start, not the first socket
  logger.info({ roles: [...roles], appEnv: config.appEnv, eventStore: config.eventStore.kind }, 'starting');

  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, logger });
    cleanups.push({ name: 'embedded PostgreSQL', run: embedded.stop });
    databaseUrl = embedded.connectionString;
  }

  const servesRequests = roles.has('public-api') || roles.has('admin-api') || roles.has('gateway');
  const pool = createPool({
    connectionString: databaseUrl,
    max: 20,
    applicationName: `casino-ledger:${[...roles].join('+')}`,
    // Requests get a statement timeout; a process that only follows the store (its batches, recounts and rebuilds
    // are background work on this pool) gets none.
    statementTimeoutMs: servesRequests ? config.db.statementTimeoutMs : undefined,
    connectionTimeoutMs: config.db.connectionTimeoutMs,
  });
  // During shutdown the (embedded) server may close connections first: expected, not worth a warning.
  pool.on('error', (error) => logger[stopping() ? 'debug' : 'warn']({ err: error }, 'idle PostgreSQL connection failed'));
  cleanups.push({ name: 'pool', run: () => pool.end() });

  await migrateAll(pool);
  if ((await ensureCalendar(pool, config.ledgerCalendar, [financeReportsProjection])) === 'changed')
    logger.info({ calendar: config.ledgerCalendar }, 'periods: a new calendar; every movement is booked again by it');

  // One Prometheus registry per process (GET /metrics on the back-office port): appends, command latencies,
  // projection positions and lag, sockets, throttled messages.
  const metrics = createMetrics({ logger });
  const rawStore = await openEventStore(config, { pool, logger });
  cleanups.push({ name: 'event store', run: () => rawStore.close() });
  // Tracked: every command answer carries the ledger position its append reached (x-ledger-position).
  const store = trackAppends(instrumentStore(rawStore, metrics));
  metrics.watchProjections(() => projectionReadings({ pool, store, projections: allProjections }));
  // Fail fast on a wrong EVENTSTORE_CONNECTION_STRING instead of a projector retrying forever.
  await store.ping().catch((error: unknown) => {
    throw new Error(`event store (${store.kind}) is unreachable: ${(error as Error).message}`, { cause: error });
  });

  const redis = config.redisUrl ? createRedis(config.redisUrl, logger) : undefined;
  if (redis) cleanups.push({ name: 'redis', run: () => closeRedis(redis) });

  // ledger_keys claims ride on the next synchronous append's WAL flush (see src/commands/entity-keys.ts).
  const keysPool = createPool({ connectionString: databaseUrl, max: 2, synchronousCommit: false, applicationName: 'casino-ledger:keys' });
  cleanups.push({ name: 'keys pool', run: () => keysPool.end() });
  const users = createUsers({ store, pool });
  const a0 = config.aml;
  const aml = createAml({
    store,
    pool,
    settings: amlSettingsFrom({
      AML_THRESHOLD_USD: a0.thresholdUsd,
      AML_THRESHOLD_EUR: a0.thresholdEur,
      AML_EUR_USD_RATE: a0.eurUsdRate,
      AML_WINDOW_HOURS: String(a0.windowHours),
      AML_REQUIRED_KYC_LEVEL: String(a0.requiredKycLevel),
    }),
  });
  const ledger = instrumentLedger(
    createLedger({
      store,
      pool,
      keysPool,
      businessTimeBounds: config.businessTime,
      userExists: users.exists,
      canTransact: users.canTransact,
      betGuard: createLimits({ store, pool }).betGuard,
      aml: amlHooks(aml, users),
      walletCacheEntries: config.walletCacheEntries,
      walletSnapshotEvery: config.walletSnapshotEvery,
      onSnapshotError: (error) => logger.warn({ err: error }, 'wallet snapshot not written (the next command tries again)'),
    }),
    metrics,
  );
  const appDeps = { logger, pool, store, redis, trustProxy: config.trustProxy, hsts: config.appEnv !== 'local' };
  const a = config.auth;
  if (a.superAdmin)
    logger.info({ email: a.superAdmin.email, result: await bootstrapSuperAdmin(users, a.superAdmin) }, 'SuperAdmin bootstrap');
  const auth = await createAuthKit({
    users,
    pool,
    redis,
    settings: {
      keys: await loadKeys({
        privatePem: a.jwtPrivateKey,
        publicPem: a.jwtPublicKey,
        dataDir: config.dataDir,
        generate: mayGenerateKeys(config),
      }),
      mfaKey: await loadSymmetricKey(a.mfaEncryptionKey, config.dataDir, MFA_KEY_NAME, { generate: mayGenerateKeys(config) }),
      accessTtlSeconds: a.accessTokenTtlSeconds,
      refreshTtlSeconds: a.refreshTokenTtlSeconds,
      mfaChallengeTtlSeconds: a.mfaChallengeTtlSeconds,
      captcha: {
        verifyUrl: a.captchaVerifyUrl,
        secret: a.captchaSecret,
        localBypassToken: a.captchaLocalBypassToken,
        appEnv: config.appEnv,
      },
      throttle: {
        maxFailuresPerAccount: a.maxFailuresPerAccount,
        maxFailuresPerAddress: a.maxFailuresPerAddress,
        windowSeconds: a.failureWindowSeconds,
      },
      geoBlockedCountries: a.geoBlockedCountries,
      trustedCountryHeader: a.trustedCountryHeader,
      allowedOrigins: allowedOrigins(config),
      adminOrigins: config.appEnv !== 'production' && config.adminToolOrigin ? [config.adminToolOrigin] : [],
      secureCookies: config.appEnv !== 'local',
      frontendOrigin: config.frontendOrigin,
    },
  });

  // Server events for sockets: through Redis across processes, in memory in single-process mode.
  const redisSubscriber = redis?.duplicate();
  if (redisSubscriber) cleanups.push({ name: 'redis subscriber', run: () => closeRedis(redisSubscriber) });
  const bus = redis && redisSubscriber ? createRedisBus(redis, redisSubscriber) : createLocalBus();
  // Reads that wait for read models ask the projectors, in any process, to take new events now (NOTIFY).
  const readersWaiting = createNotifier({ pool, channel: 'read_models_wanted', signal: createWakeSignal(), logger });
  cleanups.push({ name: 'read-model waits', run: () => readersWaiting.close() });
  let localProjector: LocalProgress | undefined;
  // The followers seal events with it, the back office seals closing reports: loaded once for both.
  const sealKey =
    roles.has('projector') || roles.has('admin-api')
      ? await loadSymmetricKey(config.audit.sealKey, config.dataDir, SEAL_KEY_NAME, { generate: mayGenerateKeys(config) })
      : undefined;
  if (roles.has('projector') && sealKey) {
    if (roles.has('public-api') || roles.has('admin-api') || roles.has('gateway')) {
      // Beside the APIs, the followers get a thread of their own: a catch-up or a busy batch never delays a request.
      const thread = await startFollowersThread({
        databaseUrl,
        sealKey,
        bus,
        logger,
        readModels: allProjections.map((p) => p.name),
      });
      cleanups.push({ name: 'followers thread', run: thread.stop });
      localProjector = thread;
    } else {
      const followers = await startFollowers({ config, pool, store, bus, logger, sealKey });
      cleanups.push({ name: 'followers', run: followers.stop });
    }
  }
  if (roles.has('admin-api')) {
    const server = await listen(
      createAdminApp({
        ...appDeps,
        ledger,
        aml,
        internalApiToken: config.internalApiToken,
        auth,
        bus,
        metrics,
        metricsToken: config.metricsToken,
        localProjector,
        askReadModels: readersWaiting.announce,
        readConsistencyTimeoutMs: config.readConsistencyTimeoutMs,
        exportLimits: config.exports,
        erasure: { retentionYears: config.audit.erasureRetentionYears, sealKey },
        periods: createPeriods({
          store,
          pool,
          calendar: config.ledgerCalendar,
          ...(sealKey ? { sealKey } : {}),
          snapshotWallet: (userId) => ledger.internals.handler.snapshot(userId),
        }),
        reconciliations: createReconciliations({ pool, tolerances: parseTolerances(config.reconciliationTolerances) }),
      }),
      config.adminPort,
    );
    cleanups.push({ name: 'admin-api', run: () => closeServer(server) });
    const internalApiNote = config.internalApiToken ? ' (internal API on)' : ' (internal API off: INTERNAL_API_TOKEN unset)';
    logger.info(
      { role: 'admin-api', url: `http://localhost:${portOf(server)}`, internalApi: Boolean(config.internalApiToken) },
      `admin-api: listening on http://localhost:${portOf(server)}${internalApiNote}`,
    );
  }
  if (!roles.has('admin-api') && config.metricsPort !== undefined) {
    const server = await listen(createMetricsApp({ ...appDeps, metrics, metricsToken: config.metricsToken }), config.metricsPort);
    cleanups.push({ name: 'metrics', run: () => closeServer(server) });
    logger.info({ url: `http://localhost:${portOf(server)}/metrics` }, `metrics: GET /metrics on http://localhost:${portOf(server)}`);
  }
  if (roles.has('public-api')) {
    const routers = identityProviderRoutes({ config, auth, pool, logger });
    const server = await listen(createPublicApp({ ...appDeps, auth: { kit: auth, ledger }, routers }), config.publicPort);
    cleanups.push({ name: 'public-api', run: () => closeServer(server) });
    logger.info(
      { role: 'public-api', url: `http://localhost:${portOf(server)}` },
      `public-api: listening on http://localhost:${portOf(server)}`,
    );
  }
  if (roles.has('gateway')) {
    const rates = createRates({ pool });
    const gateway = await startGateway({
      port: config.wsPort,
      config,
      logger,
      pool,
      authenticator: auth.authenticator,
      bus,
      redis,
      onThrottled: metrics.onThrottled,
      handlers: [
        ...liveHandlers(),
        ...chatHandlers({ pool, bus, logger }),
        ...notificationHandlers({ pool }),
        ...adminHandlers({ pool, ledger, auth, bus, logger }),
      ],
      replay: (userId, since) => replayUserEvents({ store, pool, rates, maxEvents: config.ws.replayMaxEvents }, userId, since),
    });
    cleanups.push({ name: 'gateway', run: gateway.close });
    metrics.setSocketCount(gateway.socketCount);
    const url = `ws://localhost:${gateway.port}/events`;
    logger.info({ role: 'gateway', url }, `gateway: socket.io on ${url}`);
  }
  if (roles.has('scheduler')) {
    const scheduler = startLeaderboardScheduler({
      pool,
      store,
      ledger,
      intervalMs: 30_000,
      onError: (err) => logger.error({ err }, 'leaderboard tick failed'),
    });
    cleanups.push({ name: 'scheduler', run: () => scheduler.stop() });
    logger.info({ role: 'scheduler' }, 'scheduler: leaderboards every 30 s');
    // Monitor alerts' webhooks: the outbox in PostgreSQL, claimed with SKIP LOCKED, so several schedulers share it safely.
    const webhooks = startDeliveryWorker({
      pool,
      clock: () => new Date(),
      timeoutMs: config.monitorWebhooks.timeoutMs,
      disableAfterMs: config.monitorWebhooks.disableAfterHours * 3_600_000,
      onError: (err) => logger.warn({ err }, 'monitor webhook pass failed'),
    });
    cleanups.push({ name: 'monitor webhooks', run: webhooks.stop });
  }
};

const runCleanups = async (cleanups: Cleanup[], logger: Logger): Promise<boolean> => {
  let clean = true;
  for (const c of [...cleanups].reverse()) {
    try {
      await c.run();
    } catch (error) {
      clean = false;
      logger.warn({ err: error, resource: c.name }, 'error while shutting down');
    }
  }
  cleanups.length = 0;
  return clean;
};

const main = async (): Promise<void> => {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  // Checked before anything starts: a process of a deployment must never make up a key the others cannot know.
  const missing = await missingSecrets(config, SEAL_KEY_NAME);
  if (missing) {
    process.stderr.write(`${missing}\n`);
    process.exit(1);
  }
  const logger = createLogger({ level: config.logLevel });
  const cleanups: Cleanup[] = [];
  let stopping = false;

  const shutdown = async (reason: string, code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(code || 1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    const clean = await runCleanups(cleanups, logger);
    logger.info('stopped');
    process.exit(clean ? code : code || 1);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) {
        logger.warn({ signal }, 'second signal: exiting now');
        process.exit(130);
      }
      void shutdown(signal, 0);
    });
  }

  try {
    await start(config, logger, cleanups, () => stopping);
    logger.info('ready');
  } catch (error) {
    // A refusal is one line meant for the person at the terminal; anything else is a fault with its stack in the log.
    if (error instanceof StartRefused) process.stderr.write(`${error.message}\n`);
    else logger.fatal({ err: error }, 'startup failed');
    await shutdown('startup failed', 1);
  }
};

void main();
