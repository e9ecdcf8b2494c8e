import type { z } from 'zod';
import { banUser } from '../../http/admin-users.routes.js';
import type { AdminOperation } from '../../http/admin-operation.js';
import type { BackOfficeDeps } from '../../http/back-office.deps.js';
import { chatAdminAction } from '../../http/chat-admin.routes.js';
import { givePrize } from '../../http/leaderboards.routes.js';
import { withdrawApprove, withdrawReject } from '../../http/money.routes.js';
import type { Logger } from '../../infra/logger.js';
import type { ServerEventBus } from '../../infra/bus.js';
import type { ClientEventHandler } from '../protocol.js';

export type AdminHandlerDeps = BackOfficeDeps & Readonly<{ bus: ServerEventBus; logger?: Logger }>;

/** An event that runs a back-office operation: the route's permission, the route's schema, the route's work and answer. */
const adminEvent = <D, S extends z.ZodType, R>(event: string, operation: AdminOperation<D, S, R>, deps: D): ClientEventHandler => ({
  event,
  access: { permission: operation.permission },
  schema: operation.schema,
  // The gateway has checked the permission (live) and parsed the payload with `schema`; the acting admin is the socket's user.
  handle: (input: z.output<S>, ctx) => operation.run(deps, input, ctx.user!.userId),
});

/** Private admin events: the websocket twins of admin REST operations, same handlers, same permissions (issue 6). */
export const adminHandlers = (deps: AdminHandlerDeps): ClientEventHandler[] => [
  adminEvent('UserBanUser', banUser, { users: deps.auth.users, pool: deps.pool }),
  adminEvent('WithdrawApprove', withdrawApprove, deps),
  adminEvent('WithdrawReject', withdrawReject, deps),
  adminEvent('LeaderboardGivePrize', givePrize, deps),
  adminEvent('ChatAdminAction', chatAdminAction, deps),
];
