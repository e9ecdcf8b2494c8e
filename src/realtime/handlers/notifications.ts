import type pg from 'pg';
import { z } from 'zod';
import { createNotifications } from '../../commands/notifications.js';
import type { ClientEventHandler } from '../protocol.js';

export type NotificationHandlerDeps = Readonly<{ pool: pg.Pool }>;

export const MAX_VIEWED_IDS = 100;

const NotificationGetData = z
  .object({
    take: z.number().int().min(1).max(20).optional(),
  })
  .strict()
  .nullish();

const NotificationViewedData = z
  .object({
    ids: z.array(z.uuid()).min(1).max(MAX_VIEWED_IDS).optional(),
  })
  .strict()
  .nullish();

export const notificationHandlers = (deps: NotificationHandlerDeps): ClientEventHandler[] => {
  const notifications = createNotifications({ pool: deps.pool });
  return [
    {
      event: 'NotificationGet',
      access: 'required',
      schema: NotificationGetData,
      handle: async (data: z.infer<typeof NotificationGetData>, ctx) => notifications.list(ctx.user!.userId, data?.take ?? 20),
    },
    {
      event: 'NotificationViewed',
      access: 'required',
      schema: NotificationViewedData,
      handle: async (data: z.infer<typeof NotificationViewedData>, ctx) => ({
        viewed: await notifications.markViewed(ctx.user!.userId, data?.ids),
      }),
    },
  ];
};
