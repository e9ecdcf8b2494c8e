import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import type { Metrics } from '../infra/metrics.js';
import { HttpError } from './http-errors.js';

export type MetricsRoutesDeps = Readonly<{
  metrics: Pick<Metrics, 'render' | 'contentType'>;
  /** Set: `Authorization: Bearer <token>` is required; unset: open (keep the back-office port private). */
  token?: string | undefined;
}>;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Outside the access registry (a scraper has no session): METRICS_TOKEN guards it, both sides hashed for a constant-time compare. */
export const metricsRoutes = ({ metrics, token }: MetricsRoutesDeps): Router => {
  const router = Router();
  const expected = token === undefined ? undefined : digest(token);
  router.get('/metrics', async (req, res) => {
    if (expected) {
      const match = /^Bearer (.+)$/.exec(req.get('authorization') ?? '');
      if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
        res.set('WWW-Authenticate', 'Bearer realm="metrics"');
        throw new HttpError(401, 'UNAUTHORIZED', 'A valid metrics bearer token is required');
      }
    }
    const body = await metrics.render();
    res.set('content-type', metrics.contentType).set('cache-control', 'no-store').send(body);
  });
  return router;
};
