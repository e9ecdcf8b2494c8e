import { revokeAllAccess } from '../../auth/sessions.js';
import type { z } from 'zod';
import type { AdminOperation, AdminOperationDeps } from '../../commands/admin-operations/admin-operation.js';
import { banUser } from '../../commands/admin-operations/ban-user.js';
import { chatAdminAction } from '../../commands/admin-operations/chat-admin-action.js';
import { givePrize } from '../../commands/admin-operations/give-prize.js';
import { withdrawApprove, withdrawReject } from '../../commands/admin-operations/withdrawals.js';
import type { Logger } from '../../infra/logger.js';
import type { ServerEventBus } from '../../infra/bus.js';
import type { ClientEventHandler } from '../protocol.js';

export type AdminHandlerDeps = AdminOperationDeps & Readonly<{ bus: ServerEventBus; logger?: Logger }>;

const adminEvent = <D, S extends z.ZodType, R>(event: string, operation: AdminOperation<D, S, R>, deps: D): ClientEventHandler => ({
  event,
  access: { permission: operation.permission },
  schema: operation.schema,
  // The gateway has checked the permission (live) and parsed the payload; the acting admin is the socket's user.
  handle: (input: z.output<S>, ctx) => operation.run(deps, input, ctx.user!.userId),
});

/** Websocket twins of admin REST operations: same handlers, same permissions. */
export const adminHandlers = (deps: AdminHandlerDeps): ClientEventHandler[] => [
  adminEvent('UserBanUser', banUser, {
    users: deps.auth.users,
    pool: deps.pool,
    endAccess: (...a) => revokeAllAccess(deps.pool, ...a),
  }),
  adminEvent('WithdrawApprove', withdrawApprove, deps),
  adminEvent('WithdrawReject', withdrawReject, deps),
  adminEvent('LeaderboardGivePrize', givePrize, deps),
  adminEvent('ChatAdminAction', chatAdminAction, deps),
];
