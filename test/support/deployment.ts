import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io as ioClient, type Socket } from 'socket.io-client';
import { startOwnPostgres, startOwnRedis, type OwnPostgres, type OwnRedis } from './own-services.js';
import { SERVICE_TEST_ENV, startService, waitFor, type ServiceProcess } from './service-process.js';

export const FRONTEND = 'http://localhost:5173';
export const ADMIN = { email: 'root@example.com', username: 'rootadmin', password: 'first-admin-password-1' };

/** One set of keys for every process, passed the way a deployment would (environment). */
export const sharedKeys = (): Record<string, string> => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    JWT_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    MFA_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LEDGER_SEAL_KEY: randomBytes(32).toString('hex'),
  };
};

export type Deployment = Readonly<{
  pg: OwnPostgres;
  redis: OwnRedis;
  env: Record<string, string>;
  apis: ServiceProcess[];
  gateways: ServiceProcess[];
  projectors: ServiceProcess[];
  /** Starts one more process of a role set (e.g. a replacement projector). */
  start: (name: string, extra: Record<string, string>) => Promise<ServiceProcess>;
  stop: () => Promise<void>;
}>;

/**
 * The scaled-out shape on a PostgreSQL and Redis of its own: `apis` x (public-api,admin-api), `gateways` x gateway,
 * `projectors` x projector, each a real `src/main.ts` process. The first API makes the SuperAdmin.
 */
export const startDeployment = async (counts: Readonly<{ apis: number; gateways: number; projectors: number }>): Promise<Deployment> => {
  const [pg, redis] = await Promise.all([startOwnPostgres(), startOwnRedis()]);
  const dataDir = mkdtempSync(join(tmpdir(), 'deployment-data-'));
  const env: Record<string, string> = {
    ...SERVICE_TEST_ENV,
    ...sharedKeys(),
    DATABASE_URL: pg.url,
    REDIS_URL: redis.url,
    DATA_DIR: dataDir,
  };
  const processes: ServiceProcess[] = [];
  const start = async (name: string, extra: Record<string, string>): Promise<ServiceProcess> => {
    const p = await startService(name, { ...env, ...extra });
    processes.push(p);
    return p;
  };
  // The first API migrates and makes the SuperAdmin; the rest start together (migrations are serialised anyway).
  const first = await start('api-1', {
    ROLES: 'public-api,admin-api',
    SUPERADMIN_EMAIL: ADMIN.email,
    SUPERADMIN_USERNAME: ADMIN.username,
    SUPERADMIN_PASSWORD: ADMIN.password,
  });
  const rest = await Promise.all([
    ...Array.from({ length: counts.apis - 1 }, (_, i) => start(`api-${i + 2}`, { ROLES: 'public-api,admin-api' })),
    ...Array.from({ length: counts.gateways }, (_, i) => start(`gateway-${i + 1}`, { ROLES: 'gateway', METRICS_PORT: '0' })),
    ...Array.from({ length: counts.projectors }, (_, i) => start(`projector-${i + 1}`, { ROLES: 'projector', METRICS_PORT: '0' })),
  ]);
  const apis = [first, ...rest.filter((p) => p.name.startsWith('api-'))];
  return {
    pg,
    redis,
    env,
    apis,
    gateways: rest.filter((p) => p.name.startsWith('gateway-')),
    projectors: rest.filter((p) => p.name.startsWith('projector-')),
    start,
    stop: async () => {
      await Promise.all(processes.map((p) => p.stop()));
      await Promise.all([pg.destroy(), redis.destroy()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

/** A socket.io client on a gateway's /events namespace with its received events recorded, name by name. */
export type RecordingSocket = Readonly<{
  socket: Socket;
  received: { name: string; payload: unknown; position?: string }[];
  close: () => void;
}>;

export const connectSocket = (gatewayUrl: string, token: string): Promise<RecordingSocket> => {
  const socket = ioClient(`${gatewayUrl.replace(/\/events$/, '')}/events`, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    auth: { socket_token: token },
    extraHeaders: { origin: FRONTEND },
    timeout: 5_000,
  });
  const received: RecordingSocket['received'] = [];
  socket.onAny((name: string, payload: unknown, meta?: { position?: string }) => {
    received.push({ name, payload, ...(meta?.position ? { position: meta.position } : {}) });
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, received, close: () => socket.close() }));
    socket.once('connect_error', (error) => reject(error));
  });
};

/** GET /health of a process (admin port, else its metrics port): the status code and the names of failing checks. */
export const health = async (p: ServiceProcess): Promise<{ status: number; failing: string[] }> => {
  const base = p.adminUrl ?? p.metricsUrl;
  const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5_000) });
  const body = (await res.json()) as { error?: Record<string, unknown> };
  return { status: res.status, failing: Object.keys(body.error ?? {}) };
};

/** Waits until /health of `p` reports `check` failing (or, with `check` undefined, answers 200). */
export const waitForHealth = (p: ServiceProcess, check: string | undefined, timeoutMs = 20_000) =>
  waitFor(
    async () => {
      const h = await health(p);
      return (check === undefined ? h.status === 200 : h.status === 503 && h.failing.includes(check)) ? h : undefined;
    },
    timeoutMs,
    100,
  );

/** Every projection's lag from GET /metrics (projection_lag_events); undefined when the reading is unavailable. */
export const projectionLags = async (metricsBase: string): Promise<Map<string, number> | undefined> => {
  const text = await (await fetch(`${metricsBase}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  const lags = new Map<string, number>();
  for (const m of text.matchAll(/^projection_lag_events\{projection="([^"]+)"\} (\d+)/gm)) lags.set(m[1]!, Number(m[2]));
  return lags.size > 0 ? lags : undefined;
};

/** Waits until every projection has applied every stored event. */
export const waitForProjections = (metricsBase: string, timeoutMs = 30_000) =>
  waitFor(
    async () => {
      const lags = await projectionLags(metricsBase);
      return lags && [...lags.values()].every((l) => l === 0) ? lags : undefined;
    },
    timeoutMs,
    100,
  );
