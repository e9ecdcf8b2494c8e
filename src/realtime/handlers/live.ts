import type { ClientEventHandler } from '../protocol.js';

/** LiveDropJoin / LiveDropLeave / LiveBetsJoin / LiveBetsLeave (issue 6). */
export const liveHandlers = (): ClientEventHandler[] => [];
