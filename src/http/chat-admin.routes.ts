import { CHAT_ERRORS } from '../commands/chat.errors.js';
import { errorCodesOf } from './access.js';
import { Router } from 'express';
import { guardedRoutes } from './access.js';
import { chatAdminAction, type ChatAdminDeps } from '../commands/admin-operations/chat-admin-action.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { ChatAdminActionBody } from './content.schemas.js';
import { adminOperationRoute } from './admin-operation-route.js';
import { ChatModeration as ChatModerationSchema } from './openapi.schemas.js';

/** Chat moderation, applied at once: a deleted message is pushed to its room as ChatMessageUpdate. */
export const chatAdminRoutes = (deps: BackOfficeDeps & Omit<ChatAdminDeps, 'pool'>): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry, '', errorCodesOf(CHAT_ERRORS));
  adminOperationRoute(route, '/chat/admin-action', chatAdminAction, deps, {
    summary: 'A chat admin action',
    body: ChatAdminActionBody,
    answer: { description: 'The applied action', schema: ChatModerationSchema },
  });
  return router;
};
