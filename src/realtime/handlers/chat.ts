import type pg from 'pg';
import type { ServerEventBus } from '../bus.js';
import type { ClientEventHandler } from '../protocol.js';

export type ChatHandlerDeps = Readonly<{ pool: pg.Pool; bus: ServerEventBus }>;

/** ChatJoin / ChatLeave / ChatSendMessage / ChatGetMessages / ChatGetRooms (issue 6). */
export const chatHandlers = (_deps: ChatHandlerDeps): ClientEventHandler[] => [];
