import { Router } from 'express';
import type { Logger } from '../infra/logger.js';

/** A dependency check: resolves when the dependency answers, throws otherwise. */
export type HealthCheck = () => Promise<unknown>;

export type CheckResult = Readonly<{ status: 'up' } | { status: 'down'; message: string }>;

/** The spec's "Health result": named checks under info (up), error (down) and details (all). */
export type HealthResult = Readonly<{
  status: 'ok' | 'error';
  info: Record<string, CheckResult>;
  error: Record<string, CheckResult>;
  details: Record<string, CheckResult>;
}>;

export type HealthDeps = Readonly<{
  checks: Readonly<Record<string, HealthCheck>>;
  logger: Logger;
  timeoutMs?: number;
}>;

class CheckTimeout extends Error {}

const withTimeout = async (check: HealthCheck, ms: number): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeout(`timed out after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([Promise.resolve().then(check), timeout]);
  } finally {
    clearTimeout(timer);
  }
};

/** No internal addresses or SQL in the message (the endpoint is unauthenticated); the full error goes to the log. */
const describe = (error: unknown): string => {
  if (error instanceof CheckTimeout) return error.message;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code !== '' ? `unavailable (${code})` : 'unavailable';
};

export const runHealthChecks = async ({ checks, logger, timeoutMs = 2_000 }: HealthDeps): Promise<HealthResult> => {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, CheckResult]> => {
      try {
        await withTimeout(check, timeoutMs);
        return [name, { status: 'up' }];
      } catch (error) {
        logger.warn({ err: error, check: name }, 'health check failed');
        return [name, { status: 'down', message: describe(error) }];
      }
    }),
  );
  const details = Object.fromEntries(entries);
  const info = Object.fromEntries(entries.filter(([, r]) => r.status === 'up'));
  const error = Object.fromEntries(entries.filter(([, r]) => r.status === 'down'));
  return { status: Object.keys(error).length === 0 ? 'ok' : 'error', info, error, details };
};

/** GET /health: 200 with status 'ok', or 503 with status 'error' and the failing checks under `error`. */
export const healthRoutes = (deps: HealthDeps): Router => {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const result = await runHealthChecks(deps);
    res.setHeader('cache-control', 'no-store');
    res.status(result.status === 'ok' ? 200 : 503).json(result);
  });
  return router;
};

export type DependencyChecksDeps = Readonly<{
  pool: Readonly<{ query: (sql: string) => Promise<unknown> }>;
  store: Readonly<{ ping: () => Promise<void> }>;
  redis?: Readonly<{ ping: () => Promise<unknown> }> | undefined;
}>;

/** The checks every app reports: database, event store, and Redis when configured. */
export const dependencyChecks = ({ pool, store, redis }: DependencyChecksDeps): Record<string, HealthCheck> => ({
  database: () => pool.query('SELECT 1'),
  eventStore: () => store.ping(),
  ...(redis ? { redis: () => redis.ping() } : {}),
});
