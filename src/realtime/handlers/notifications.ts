import type pg from 'pg';
import type { ClientEventHandler } from '../protocol.js';

export type NotificationHandlerDeps = Readonly<{ pool: pg.Pool }>;

/** NotificationGet / NotificationViewed (issue 6). */
export const notificationHandlers = (_deps: NotificationHandlerDeps): ClientEventHandler[] => [];
