import { z } from 'zod';
import { connectionStringProblem } from './event-store/kurrentdb.connection-string.js';

/** The roles one process can play; `ROLES` picks a subset for scale-out (all by default). */
export const ROLES = ['public-api', 'admin-api', 'gateway', 'projector', 'scheduler'] as const;
export type Role = (typeof ROLES)[number];

export const APP_ENVS = ['local', 'development', 'staging', 'production'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type EventStoreConfig = Readonly<{ kind: 'postgres' }> | Readonly<{ kind: 'eventstoredb'; connectionString: string }>;

export type Config = Readonly<{
  publicPort: number;
  adminPort: number;
  wsPort: number;
  roles: ReadonlySet<Role>;
  /** Unset: an embedded PostgreSQL is started under `dataDir/pg`. */
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPgPort: number;
  eventStore: EventStoreConfig;
  /** Unset: single-process mode (in-process bus and throttler). */
  redisUrl: string | undefined;
  appEnv: AppEnv;
  /** Unset: the internal ledger API is off (404). */
  internalApiToken: string | undefined;
  logLevel: LogLevel;
  ws: Readonly<{
    throttlerTtlMs: number;
    throttlerLimit: number;
    throttlerBlockDurationMs: number;
    throttlerDisabled: boolean;
    maxConnectionsPerIp: number;
    clientMessageMaxLen: number;
    /** Packets waiting to be written to one socket before that client is dropped as too slow. */
    maxQueuedPackets: number;
    usersOnlineIntervalMs: number;
    /** Most per-user events replayed to a reconnecting client; beyond that it is told to reload. */
    replayMaxEvents: number;
  }>;
  feeds: Readonly<{
    /** BigWins: payout in USD at least this (decimal string). */
    bigWinMinUsd: string;
    /** HighRollers: stake in USD at least this (decimal string). */
    highRollerMinUsd: string;
    /** LuckyWins: payout / stake at least this (decimal string), with a stake of at least luckyWinMinStakeUsd. */
    luckyWinMinMultiplier: string;
    luckyWinMinStakeUsd: string;
  }>;
  audit: Readonly<{
    /** 32 bytes (hex or base64) keying the HMAC of ledger seal checkpoints; unset = generated once under DATA_DIR/keys. */
    sealKey: string | undefined;
    sealCheckpointEvery: number;
    /** Years after a person's last activity during which an erasure is refused unless forced (AML record keeping). */
    erasureRetentionYears: number;
  }>;
  /** A caller's business time (effectiveAt) may be at most maxSkewMs after the recording time and maxAgeDays before it. */
  businessTime: Readonly<{ maxSkewMs: number; maxAgeDays: number }>;
  /** How long a back-office read waits for its read models to pass the head as of its arrival before answering stale. */
  readConsistencyTimeoutMs: number;
  /** The request pool: a statement past statementTimeoutMs is cancelled; a request waits at most connectionTimeoutMs for a connection. */
  db: Readonly<{ statementTimeoutMs: number; connectionTimeoutMs: number }>;
  /** Downloads of read models: how many at once (in all, per admin), how long each may run, how slow a reader may be. */
  exports: Readonly<{ total: number; perAdmin: number; maxDurationMs: number; stallTimeoutMs: number; minBytesPerSecond: number }>;
  walletCacheEntries: number;
  /** AML thresholds as configured (docs/compliance.md): decimals as text, the threshold in USD when set, else EUR at the rate. */
  aml: Readonly<{
    thresholdUsd: string | undefined;
    thresholdEur: string;
    eurUsdRate: string;
    windowHours: number;
    requiredKycLevel: number;
  }>;
  /** Monitor webhooks (docs/compliance.md): one POST's limit, and how long a target may fail before it is disabled. */
  monitorWebhooks: Readonly<{ timeoutMs: number; disableAfterHours: number }>;
  /** A wallet's kept state is written as a snapshot once this many of its events were appended since the last one. */
  walletSnapshotEvery: number;
  /** The periods the books close by: calendar months (or days) in this time zone. Fixed once a period is closed. */
  ledgerCalendar: Readonly<{ timeZone: string; unit: 'month' | 'day' }>;
  /** RECONCILIATION_TOLERANCES as given (`BTC=0.000001,USDT=0.01`); read by the reconciliation's parseTolerances. */
  reconciliationTolerances: string | undefined;
  /** Set: GET /metrics requires `Authorization: Bearer <token>`; unset: /metrics is open on the back-office port. */
  metricsToken: string | undefined;
  /** Metrics/health port for a process without admin-api (which serves them on ADMIN_PORT). */
  metricsPort: number | undefined;
  frontendOrigin: string;
  adminToolOrigin: string | undefined;
  /** Proxies in front of the service (addresses or CIDRs) whose X-Forwarded-For hops are skipped. */
  trustProxy: readonly string[];
  auth: AuthConfig;
}>;

export type AuthConfig = Readonly<{
  /** PEM (PKCS#8 / SPKI) Ed25519 keys; unset = a pair generated once under DATA_DIR/keys. */
  jwtPrivateKey: string | undefined;
  jwtPublicKey: string | undefined;
  /** 32 bytes (hex or base64) sealing MFA secrets; unset = generated once under DATA_DIR/keys. */
  mfaEncryptionKey: string | undefined;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  mfaChallengeTtlSeconds: number;
  captchaVerifyUrl: string;
  captchaSecret: string | undefined;
  captchaLocalBypassToken: string;
  geoBlockedCountries: readonly string[];
  trustedCountryHeader: string;
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  failureWindowSeconds: number;
  publicBaseUrl: string;
  google: Readonly<{ issuerUrl: string; clientId: string; clientSecret: string }> | undefined;
  steam: Readonly<{ openIdEndpoint: string; claimedIdHost: string }>;
  /** Identity providers staff accounts may sign in with (STAFF_IDENTITY_PROVIDERS); none: password and MFA only. */
  staffIdentityProviders: readonly ('google' | 'steam')[];
  superAdmin: Readonly<{ email: string; username: string; password: string }> | undefined;
}>;

/** A bad environment: one line per problem, each naming the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const port = (fallback: number) =>
  z.coerce
    .number({ error: 'must be a port number' })
    .int('must be an integer')
    .min(0, 'must be between 0 and 65535')
    .max(65535, 'must be between 0 and 65535')
    .default(fallback);
const positiveInt = (fallback: number) =>
  z.coerce.number({ error: 'must be a number' }).int('must be an integer').positive('must be positive').default(fallback);
const decimal = (fallback: string) =>
  z
    .string()
    .regex(/^\d{1,18}(\.\d{1,18})?$/, 'must be a non-negative decimal such as 100 or 2.5')
    .default(fallback);
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const url = (protocols: readonly string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
  );
const commaList = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== ''),
);

const EnvSchema = z.object({
  PUBLIC_PORT: port(3000),
  ADMIN_PORT: port(3001),
  WS_PORT: port(3002),
  ROLES: commaList
    .pipe(z.array(z.enum(ROLES, { error: `each role must be one of ${ROLES.join(', ')}` })).min(1, 'must list at least one role'))
    .default([...ROLES]),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  DATA_DIR: z.string().default('./.data'),
  EMBEDDED_PG_PORT: port(54329),
  EVENT_STORE: z.enum(['postgres', 'eventstoredb'], { error: 'must be postgres or eventstoredb' }).default('postgres'),
  // Checked by the client's own parser: several gossip seeds (host:port,host:port) are no WHATWG URL.
  EVENTSTORE_CONNECTION_STRING: z
    .string()
    .superRefine((v, ctx) => {
      const problem = connectionStringProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  APP_ENV: z.enum(APP_ENVS, { error: `must be one of ${APP_ENVS.join(', ')}` }).default('local'),
  INTERNAL_API_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  WS_THROTTLER_TTL: positiveInt(60_000),
  WS_THROTTLER_LIMIT: positiveInt(240),
  WS_THROTTLER_BLOCK_DURATION: positiveInt(600_000),
  WS_THROTTLER_DISABLE: bool.default(false),
  WS_MAX_CONNECTIONS_PER_IP: positiveInt(20),
  WS_CLIENT_MESSAGE_MAX_LEN: positiveInt(16_384),
  WS_MAX_QUEUED_PACKETS: positiveInt(1_000),
  WS_USERS_ONLINE_INTERVAL: positiveInt(10_000),
  WS_REPLAY_MAX_EVENTS: positiveInt(1_000),
  FEED_BIG_WIN_MIN_USD: decimal('100'),
  FEED_HIGH_ROLLER_MIN_USD: decimal('100'),
  FEED_LUCKY_WIN_MIN_MULTIPLIER: decimal('10'),
  FEED_LUCKY_WIN_MIN_STAKE_USD: decimal('1'),
  LEDGER_SEAL_KEY: z.string().optional(),
  LEDGER_SEAL_CHECKPOINT_EVERY: positiveInt(1_000),
  ERASURE_RETENTION_YEARS: positiveInt(5),
  BUSINESS_TIME_MAX_SKEW_MS: z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(0, 'must not be negative')
    .default(60_000),
  BUSINESS_TIME_MAX_AGE_DAYS: positiveInt(400),
  AML_THRESHOLD_USD: z
    .string()
    .regex(/^\d{1,18}(\.\d{1,8})?$/, 'must be a non-negative decimal such as 2160')
    .optional(),
  AML_THRESHOLD_EUR: decimal('2000'),
  AML_EUR_USD_RATE: decimal('1.08'),
  AML_WINDOW_HOURS: positiveInt(24).pipe(z.number().max(720, 'must be at most 720 hours')),
  AML_REQUIRED_KYC_LEVEL: z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(0, 'must not be negative')
    .default(1),
  MONITOR_WEBHOOK_DISABLE_AFTER_HOURS: positiveInt(24),
  MONITOR_WEBHOOK_TIMEOUT_MS: positiveInt(10_000),
  READ_CONSISTENCY_TIMEOUT_MS: positiveInt(2_000),
  DB_STATEMENT_TIMEOUT_MS: positiveInt(60_000),
  DB_CONNECTION_TIMEOUT_MS: positiveInt(10_000),
  EXPORT_MAX_CONCURRENT: positiveInt(4),
  EXPORT_MAX_PER_ADMIN: positiveInt(2),
  EXPORT_MAX_DURATION_MS: positiveInt(15 * 60_000),
  EXPORT_STALL_TIMEOUT_MS: positiveInt(60_000),
  EXPORT_MIN_BYTES_PER_SECOND: positiveInt(4096),
  WALLET_CACHE_ENTRIES: positiveInt(1_000_000),
  WALLET_SNAPSHOT_EVERY: positiveInt(100),
  LEDGER_TIME_ZONE: z
    .string()
    .default('UTC')
    .refine(
      (zone) => {
        try {
          new Intl.DateTimeFormat('en', { timeZone: zone });
          return true;
        } catch {
          return false;
        }
      },
      { message: 'must be an IANA time zone such as Europe/Malta' },
    ),
  LEDGER_PERIOD: z.enum(['month', 'day'], { error: 'must be month or day' }).default('month'),
  RECONCILIATION_TOLERANCES: z
    .string()
    .regex(/^\s*([A-Z_]+\s*=\s*\d+(\.\d+)?\s*(,\s*|$))*$/, 'must be CURRENCY=decimal pairs separated by commas')
    .optional(),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  METRICS_PORT: z.coerce
    .number({ error: 'must be a port number' })
    .int('must be an integer')
    .min(0, 'must be between 0 and 65535')
    .max(65535, 'must be between 0 and 65535')
    .optional(),
  FRONTEND_ORIGIN: url(['http:', 'https:']).default('http://localhost:5173'),
  ADMIN_TOOL_ORIGIN: url(['http:', 'https:']).optional(),
  TRUST_PROXY: commaList.default([]),
  JWT_PRIVATE_KEY: z.string().includes('PRIVATE KEY', { error: 'must be a PKCS#8 PEM' }).optional(),
  JWT_PUBLIC_KEY: z.string().includes('PUBLIC KEY', { error: 'must be an SPKI PEM' }).optional(),
  MFA_ENCRYPTION_KEY: z.string().optional(),
  ACCESS_TOKEN_TTL: positiveInt(900),
  REFRESH_TOKEN_TTL: positiveInt(30 * 24 * 3600),
  MFA_CHALLENGE_TTL: positiveInt(300),
  CAPTCHA_VERIFY_URL: url(['http:', 'https:']).default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  CAPTCHA_SECRET: z.string().optional(),
  CAPTCHA_LOCAL_BYPASS_TOKEN: z.string().default('local-captcha-bypass'),
  GEO_BLOCKED_COUNTRIES: commaList
    .pipe(z.array(z.string().regex(/^[A-Za-z]{2}$/, 'each country must be an ISO 3166-1 alpha-2 code')))
    .default([]),
  TRUSTED_COUNTRY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, 'must be a header name')
    .default('cf-ipcountry'),
  AUTH_MAX_FAILURES_PER_ACCOUNT: positiveInt(5),
  AUTH_MAX_FAILURES_PER_ADDRESS: positiveInt(50),
  AUTH_FAILURE_WINDOW: positiveInt(900),
  PUBLIC_BASE_URL: url(['http:', 'https:']).default('http://localhost:3000'),
  GOOGLE_ISSUER_URL: url(['http:', 'https:']).default('https://accounts.google.com'),
  GOOGLE_CLIENT_ID: z.string().optional(),
  GOOGLE_CLIENT_SECRET: z.string().optional(),
  STEAM_OPENID_ENDPOINT: url(['http:', 'https:']).default('https://steamcommunity.com/openid/login'),
  STEAM_CLAIMED_ID_HOST: z.string().default('steamcommunity.com'),
  STAFF_IDENTITY_PROVIDERS: commaList.pipe(z.array(z.enum(['google', 'steam']))).default([]),
  SUPERADMIN_EMAIL: z.email('must be an e-mail address').optional(),
  SUPERADMIN_USERNAME: z
    .string()
    .regex(/^[A-Za-z0-9]{3,16}$/, 'must be 3 to 16 letters and digits')
    .optional(),
  SUPERADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
});

const portClashes = (env: Readonly<{ PUBLIC_PORT: number; ADMIN_PORT: number; WS_PORT: number }>): string[] => {
  const ports = [
    ['PUBLIC_PORT', env.PUBLIC_PORT],
    ['ADMIN_PORT', env.ADMIN_PORT],
    ['WS_PORT', env.WS_PORT],
  ] as const;
  return ports.flatMap(([name, value], i) => {
    const clash = ports.slice(0, i).find(([, other]) => other === value && value !== 0);
    return clash ? [`${name}: must differ from ${clash[0]} (both are ${value})`] : [];
  });
};

const shown = (value: string | undefined, name: string): string =>
  value === undefined ? '' : /TOKEN|PASSWORD|SECRET|URL|CONNECTION_STRING/.test(name) ? ' (value hidden)' : ` (got "${value}")`;

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  // An empty variable (FOO= in a compose file) means "unset".
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(present);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? 'environment');
        return `${name}: ${issue.message}${shown(present[name], name)}`;
      });
  // Cross-field rules, checked even when single fields failed so that every problem shows at once.
  if (present.EVENT_STORE === 'eventstoredb' && !present.EVENTSTORE_CONNECTION_STRING) {
    problems.push('EVENTSTORE_CONNECTION_STRING: is required when EVENT_STORE=eventstoredb');
  }
  if (parsed.success) problems.push(...portClashes(parsed.data));
  if (Boolean(present.GOOGLE_CLIENT_ID) !== Boolean(present.GOOGLE_CLIENT_SECRET)) {
    problems.push('GOOGLE_CLIENT_ID / GOOGLE_CLIENT_SECRET: set both to enable Google sign-in, or neither');
  }
  if (present.JWT_PRIVATE_KEY && !present.JWT_PUBLIC_KEY) problems.push('JWT_PUBLIC_KEY: is required with JWT_PRIVATE_KEY');
  if (present.JWT_PUBLIC_KEY && !present.JWT_PRIVATE_KEY) problems.push('JWT_PRIVATE_KEY: is required with JWT_PUBLIC_KEY');
  if (!parsed.success || problems.length > 0) throw new ConfigError([...new Set(problems)]);
  const e = parsed.data;
  return {
    publicPort: e.PUBLIC_PORT,
    adminPort: e.ADMIN_PORT,
    wsPort: e.WS_PORT,
    roles: new Set(e.ROLES),
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    eventStore:
      e.EVENT_STORE === 'eventstoredb'
        ? { kind: 'eventstoredb', connectionString: e.EVENTSTORE_CONNECTION_STRING ?? '' }
        : { kind: 'postgres' },
    redisUrl: e.REDIS_URL,
    appEnv: e.APP_ENV,
    internalApiToken: e.INTERNAL_API_TOKEN,
    logLevel: e.LOG_LEVEL,
    ws: {
      throttlerTtlMs: e.WS_THROTTLER_TTL,
      throttlerLimit: e.WS_THROTTLER_LIMIT,
      throttlerBlockDurationMs: e.WS_THROTTLER_BLOCK_DURATION,
      throttlerDisabled: e.WS_THROTTLER_DISABLE,
      maxConnectionsPerIp: e.WS_MAX_CONNECTIONS_PER_IP,
      clientMessageMaxLen: e.WS_CLIENT_MESSAGE_MAX_LEN,
      maxQueuedPackets: e.WS_MAX_QUEUED_PACKETS,
      usersOnlineIntervalMs: e.WS_USERS_ONLINE_INTERVAL,
      replayMaxEvents: e.WS_REPLAY_MAX_EVENTS,
    },
    feeds: {
      bigWinMinUsd: e.FEED_BIG_WIN_MIN_USD,
      highRollerMinUsd: e.FEED_HIGH_ROLLER_MIN_USD,
      luckyWinMinMultiplier: e.FEED_LUCKY_WIN_MIN_MULTIPLIER,
      luckyWinMinStakeUsd: e.FEED_LUCKY_WIN_MIN_STAKE_USD,
    },
    audit: {
      sealKey: e.LEDGER_SEAL_KEY,
      sealCheckpointEvery: e.LEDGER_SEAL_CHECKPOINT_EVERY,
      erasureRetentionYears: e.ERASURE_RETENTION_YEARS,
    },
    businessTime: { maxSkewMs: e.BUSINESS_TIME_MAX_SKEW_MS, maxAgeDays: e.BUSINESS_TIME_MAX_AGE_DAYS },
    readConsistencyTimeoutMs: e.READ_CONSISTENCY_TIMEOUT_MS,
    db: { statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS, connectionTimeoutMs: e.DB_CONNECTION_TIMEOUT_MS },
    exports: {
      total: e.EXPORT_MAX_CONCURRENT,
      perAdmin: e.EXPORT_MAX_PER_ADMIN,
      maxDurationMs: e.EXPORT_MAX_DURATION_MS,
      stallTimeoutMs: e.EXPORT_STALL_TIMEOUT_MS,
      minBytesPerSecond: e.EXPORT_MIN_BYTES_PER_SECOND,
    },
    walletCacheEntries: e.WALLET_CACHE_ENTRIES,
    aml: {
      thresholdUsd: e.AML_THRESHOLD_USD,
      thresholdEur: e.AML_THRESHOLD_EUR,
      eurUsdRate: e.AML_EUR_USD_RATE,
      windowHours: e.AML_WINDOW_HOURS,
      requiredKycLevel: e.AML_REQUIRED_KYC_LEVEL,
    },
    monitorWebhooks: { timeoutMs: e.MONITOR_WEBHOOK_TIMEOUT_MS, disableAfterHours: e.MONITOR_WEBHOOK_DISABLE_AFTER_HOURS },
    walletSnapshotEvery: e.WALLET_SNAPSHOT_EVERY,
    ledgerCalendar: { timeZone: e.LEDGER_TIME_ZONE, unit: e.LEDGER_PERIOD },
    reconciliationTolerances: e.RECONCILIATION_TOLERANCES,
    metricsToken: e.METRICS_TOKEN,
    metricsPort: e.METRICS_PORT,
    frontendOrigin: e.FRONTEND_ORIGIN,
    adminToolOrigin: e.ADMIN_TOOL_ORIGIN,
    trustProxy: e.TRUST_PROXY,
    auth: {
      jwtPrivateKey: e.JWT_PRIVATE_KEY,
      jwtPublicKey: e.JWT_PUBLIC_KEY,
      mfaEncryptionKey: e.MFA_ENCRYPTION_KEY,
      accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL,
      refreshTokenTtlSeconds: e.REFRESH_TOKEN_TTL,
      mfaChallengeTtlSeconds: e.MFA_CHALLENGE_TTL,
      captchaVerifyUrl: e.CAPTCHA_VERIFY_URL,
      captchaSecret: e.CAPTCHA_SECRET,
      captchaLocalBypassToken: e.CAPTCHA_LOCAL_BYPASS_TOKEN,
      geoBlockedCountries: e.GEO_BLOCKED_COUNTRIES.map((c) => c.toUpperCase()),
      trustedCountryHeader: e.TRUSTED_COUNTRY_HEADER.toLowerCase(),
      maxFailuresPerAccount: e.AUTH_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerAddress: e.AUTH_MAX_FAILURES_PER_ADDRESS,
      failureWindowSeconds: e.AUTH_FAILURE_WINDOW,
      publicBaseUrl: e.PUBLIC_BASE_URL.replace(/\/+$/, ''),
      google:
        e.GOOGLE_CLIENT_ID && e.GOOGLE_CLIENT_SECRET
          ? { issuerUrl: e.GOOGLE_ISSUER_URL, clientId: e.GOOGLE_CLIENT_ID, clientSecret: e.GOOGLE_CLIENT_SECRET }
          : undefined,
      steam: { openIdEndpoint: e.STEAM_OPENID_ENDPOINT, claimedIdHost: e.STEAM_CLAIMED_ID_HOST },
      staffIdentityProviders: e.STAFF_IDENTITY_PROVIDERS,
      superAdmin:
        e.SUPERADMIN_EMAIL && e.SUPERADMIN_USERNAME && e.SUPERADMIN_PASSWORD
          ? { email: e.SUPERADMIN_EMAIL, username: e.SUPERADMIN_USERNAME, password: e.SUPERADMIN_PASSWORD }
          : undefined,
    },
  };
};

/** Origins allowed to open sockets and send credentialed requests: the front end, plus the admin tool outside production. */
export const allowedOrigins = (config: Pick<Config, 'frontendOrigin' | 'adminToolOrigin' | 'appEnv'>): string[] => [
  config.frontendOrigin,
  ...(config.appEnv !== 'production' && config.adminToolOrigin ? [config.adminToolOrigin] : []),
];
