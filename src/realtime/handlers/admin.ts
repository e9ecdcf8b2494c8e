import type { BackOfficeDeps } from '../../http/back-office.deps.js';
import type { ServerEventBus } from '../bus.js';
import type { ClientEventHandler } from '../protocol.js';

export type AdminHandlerDeps = BackOfficeDeps & Readonly<{ bus: ServerEventBus }>;

/** Private admin events: the websocket twins of admin REST operations, same handlers, same permissions (issue 6). */
export const adminHandlers = (_deps: AdminHandlerDeps): ClientEventHandler[] => [];
