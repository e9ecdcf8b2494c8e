import { Router } from 'express';
import { authOf } from './auth.adapter.js';
import type { Rates } from '../commands/rates.js';
import { getSiteConfig, putSiteConfig } from '../commands/site-config.js';
import { SECTION_SCHEMAS } from '../domain/site-config/site-config.sections.js';
import { guardedRoutes } from './access.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { ConfigEnvelope, ConfigQuery } from './content.schemas.js';
import { parseBody, parseQuery } from './validate.js';
import { SiteConfigSection, SiteConfigSectionOrUnset } from './openapi.schemas.js';

export const configRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  // The ledger built by createLedger exposes its rate cache; another Ledger simply lags up to the cache TTL.
  const rates = (deps.ledger as { internals?: { rates?: Rates } }).internals?.rates;

  route(
    'get',
    '/config',
    { kind: 'superadmin' },
    {
      summary: 'Read a configuration section',
      description:
        'The section as stored by the last PUT. A section never saved answers an empty config with revision, ' +
        'updatedByUserId and updatedAt null (the first save answers revision 0).',
      request: { query: ConfigQuery },
      responses: { 200: { description: 'The section', schema: SiteConfigSectionOrUnset } },
      addition: true,
    },
    async (req, res) => {
      const { code } = parseQuery(ConfigQuery, req);
      res.json(await getSiteConfig(deps.pool, code));
    },
  );
  route(
    'put',
    '/config',
    { kind: 'superadmin' },
    {
      summary: 'Replace a configuration section',
      request: { query: ConfigQuery, body: ConfigEnvelope },
      responses: { 200: { description: 'The section', schema: SiteConfigSection } },
    },
    async (req, res) => {
      const { code } = parseQuery(ConfigQuery, req);
      const envelope = parseBody(ConfigEnvelope, req);
      const { config } = parseBody(ConfigEnvelope.extend({ config: SECTION_SCHEMAS[code] }), req);
      const stored = await putSiteConfig(
        { pool: deps.pool, store: deps.store, ...(rates ? { invalidateRates: rates.invalidate } : {}) },
        { code, config, request: envelope.code, adminUserId: authOf(req).userId, at: new Date().toISOString() },
      );
      res.json(stored);
    },
  );
  return router;
};
