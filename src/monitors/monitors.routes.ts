import { Router } from 'express';
import { recordAdminAction } from '../commands/admin-actions.store.js';
import { guardedRoutes } from '../http/access.js';
import { authOf } from '../http/auth.adapter.js';
import type { BackOfficeDeps } from '../http/back-office.deps.js';
import { HttpError } from '../http/http-errors.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { inTransaction } from '../infra/pg.js';
import {
  enableWebhook,
  insertMonitor,
  insertWebhook,
  setMonitorEnabled,
  listAlerts,
  listMonitors,
  listWebhooks,
} from './monitors.queries.js';
import {
  AlertList,
  AlertsQuery,
  CreateMonitorBody,
  CreateWebhookBody,
  IdParams,
  MonitorEnabledBody,
  MonitorList,
  MonitorRecord,
  WebhookList,
  WebhookRecord,
} from './monitors.schemas.js';

const SUPERADMIN = { kind: 'superadmin' } as const;

/** Monitors and alerts (docs/compliance.md): defined by a SuperAdmin (audited), their alerts and webhook targets listed. */
export const monitorsRoutes = (deps: BackOfficeDeps): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry, '', { 404: ['MONITOR_NOT_FOUND', 'WEBHOOK_NOT_FOUND'] });
  const { pool } = deps;

  route(
    'post',
    '/monitors',
    SUPERADMIN,
    {
      summary: 'Define a monitor: facts from now on that meet it raise an alert, once per fact',
      addition: true,
      description: 'Recorded in the admin audit log as `monitor.create`.',
      request: { body: CreateMonitorBody },
      responses: { 201: { description: 'The monitor', schema: MonitorRecord } },
    },
    async (req, res) => {
      const { type, thresholdUsd, windowHours } = parseBody(CreateMonitorBody, req);
      const adminUserId = authOf(req).userId;
      const monitor = await inTransaction(pool, async (client) => {
        const m = await insertMonitor(
          client,
          type,
          thresholdUsd ?? null,
          type === 'player-net-loss-over' ? (windowHours ?? 24) : null,
          adminUserId,
        );
        await recordAdminAction(client, {
          adminUserId,
          action: 'monitor.create',
          details: { monitorId: m.id, type, thresholdUsd: m.thresholdUsd },
        });
        return m;
      });
      res.status(201).json(monitor);
    },
  );
  route(
    'get',
    '/monitors',
    SUPERADMIN,
    { summary: 'The monitors', addition: true, responses: { 200: { description: 'Every monitor', schema: MonitorList } } },
    async (_req, res) => {
      res.json({ data: await listMonitors(pool) });
    },
  );
  route(
    'get',
    '/monitors/alerts',
    SUPERADMIN,
    {
      summary: 'Alerts raised by monitors, newest first, with their webhook deliveries counted',
      addition: true,
      request: { query: AlertsQuery },
      responses: { 200: { description: 'The newest alerts', schema: AlertList } },
    },
    async (req, res) => {
      const { limit } = parseQuery(AlertsQuery, req);
      res.json({ data: await listAlerts(pool, limit) });
    },
  );
  route(
    'post',
    '/monitors/webhooks',
    SUPERADMIN,
    {
      summary: "Add a webhook for a monitor type's alerts, signed with its secret",
      addition: true,
      description:
        'Each delivery is a POST of the alert as JSON with `x-monitor-delivery-id` (stable: deduplicate on it) and ' +
        '`x-monitor-signature: sha256=<hex HMAC-SHA256 of the body>`. Recorded in the admin audit log as `monitor.webhook-create`.',
      request: { body: CreateWebhookBody },
      responses: { 201: { description: 'The webhook (without its secret)', schema: WebhookRecord } },
    },
    async (req, res) => {
      const { monitorType, url, secret } = parseBody(CreateWebhookBody, req);
      const adminUserId = authOf(req).userId;
      const hook = await inTransaction(pool, async (client) => {
        const w = await insertWebhook(client, monitorType, url, secret, adminUserId);
        await recordAdminAction(client, { adminUserId, action: 'monitor.webhook-create', details: { webhookId: w.id, monitorType, url } });
        return w;
      });
      res.status(201).json(hook);
    },
  );
  route(
    'get',
    '/monitors/webhooks',
    SUPERADMIN,
    {
      summary: 'Webhook targets: active, failing, or disabled after failing for a day',
      addition: true,
      responses: { 200: { description: 'Every webhook (secrets never shown)', schema: WebhookList } },
    },
    async (_req, res) => {
      res.json({ data: await listWebhooks(pool) });
    },
  );
  route(
    'post',
    '/monitors/:id/enabled',
    SUPERADMIN,
    {
      summary: 'Enable or disable a monitor: a disabled one raises no alerts',
      addition: true,
      description: 'Recorded in the admin audit log as `monitor.set-enabled`.',
      request: { params: IdParams, body: MonitorEnabledBody },
      responses: { 204: { description: 'Done' } },
    },
    async (req, res) => {
      const { id } = parseParams(IdParams, req);
      const { enabled } = parseBody(MonitorEnabledBody, req);
      const adminUserId = authOf(req).userId;
      const found = await inTransaction(pool, async (client) => {
        if (!(await setMonitorEnabled(client, id, enabled))) return false;
        await recordAdminAction(client, { adminUserId, action: 'monitor.set-enabled', details: { monitorId: id, enabled } });
        return true;
      });
      if (!found) throw new HttpError(404, 'MONITOR_NOT_FOUND', `Monitor ${id} not found`);
      res.status(204).end();
    },
  );
  route(
    'post',
    '/monitors/webhooks/:id/enable',
    SUPERADMIN,
    {
      summary: 'Re-enable a webhook target (after it was disabled for failing): its undelivered alerts are sent again',
      addition: true,
      description: 'Recorded in the admin audit log as `monitor.webhook-enable`.',
      request: { params: IdParams },
      responses: { 204: { description: 'Done' } },
    },
    async (req, res) => {
      const { id } = parseParams(IdParams, req);
      const adminUserId = authOf(req).userId;
      const found = await inTransaction(pool, async (client) => {
        if (!(await enableWebhook(client, id))) return false;
        await recordAdminAction(client, { adminUserId, action: 'monitor.webhook-enable', details: { webhookId: id } });
        return true;
      });
      if (!found) throw new HttpError(404, 'WEBHOOK_NOT_FOUND', `Webhook ${id} not found`);
      res.status(204).end();
    },
  );
  return router;
};
