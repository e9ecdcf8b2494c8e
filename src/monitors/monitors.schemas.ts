import { z } from '../http/validate.js';

export const MONITOR_TYPES = ['bet-win-over', 'withdrawal-over', 'aml-flag', 'player-net-loss-over'] as const;
const MonitorType = z.enum(MONITOR_TYPES).openapi({
  description:
    "bet-win-over: a settled bet's USD payout over the threshold; withdrawal-over: a withdrawal request's USD amount over it; " +
    'aml-flag: an AML flag raised (over the threshold of its linked USD, if one is given); ' +
    "player-net-loss-over: a player's net loss (stakes less payouts of settled bets) over the window, over the threshold",
});
const Usd = z
  .string()
  .regex(/^\d{1,18}(\.\d{1,8})?$/)
  .openapi({ description: 'USD, an exact decimal', example: '10000' });

export const CreateMonitorBody = z
  .object({
    type: MonitorType,
    thresholdUsd: Usd.nullable().optional(),
    windowHours: z
      .number()
      .int()
      .min(1)
      .max(720)
      .optional()
      .openapi({ description: 'player-net-loss-over: the window, hours (24 if not given)' }),
  })
  .openapi('CreateMonitorBody');
export const MonitorRecord = z
  .object({
    id: z.string(),
    type: MonitorType,
    thresholdUsd: z.string().nullable(),
    enabled: z.boolean(),
    createdBy: z.number().int(),
    createdAt: z.string(),
  })
  .openapi('Monitor');
export const MonitorList = z.object({ data: z.array(MonitorRecord) }).openapi('MonitorList');

export const AlertsQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) });
export const AlertRecord = z
  .object({
    id: z.string(),
    monitorId: z.string(),
    type: MonitorType,
    subject: z.string().openapi({ description: 'What fired: bet:<id>, withdrawal:<id> or aml-flag:<id>' }),
    userId: z.number().int().nullable(),
    amountUsd: z.string().nullable(),
    raisedAt: z.string(),
    delivered: z.number().int().openapi({ description: 'Webhook deliveries acknowledged' }),
    pending: z.number().int().openapi({ description: 'Webhook deliveries not yet acknowledged' }),
  })
  .openapi('MonitorAlert');
export const AlertList = z.object({ data: z.array(AlertRecord) }).openapi('MonitorAlertList');

export const CreateWebhookBody = z
  .object({
    monitorType: MonitorType,
    url: z.url({ protocol: /^https?$/ }).max(2000),
    secret: z.string().min(16).max(200).openapi({ description: 'Signs each body (HMAC-SHA256); never shown again' }),
  })
  .openapi('CreateMonitorWebhookBody');
export const WebhookRecord = z
  .object({
    id: z.string(),
    monitorType: MonitorType,
    url: z.string(),
    state: z.enum(['active', 'failing', 'disabled']),
    failingSince: z.string().nullable(),
    disabledAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('MonitorWebhook');
export const WebhookList = z.object({ data: z.array(WebhookRecord) }).openapi('MonitorWebhookList');

export const IdParams = z.object({ id: z.string().regex(/^\d{1,18}$/) });
export const MonitorEnabledBody = z.object({ enabled: z.boolean() }).openapi('MonitorEnabledBody');
