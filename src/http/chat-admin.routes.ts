import { Router } from 'express';
import { authOf } from './auth.adapter.js';
import { guardedRoutes } from './access.js';
import { chatAdminAction, type ChatAdminDeps } from '../commands/admin-operations/chat-admin-action.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { ChatAdminActionBody } from './content.schemas.js';
import { parseBody } from './validate.js';
import { ChatModeration as ChatModerationSchema } from './openapi.schemas.js';

/** Chat moderation, applied at once: a deleted message is pushed to its room as ChatMessageUpdate. */
export const chatAdminRoutes = (deps: BackOfficeDeps & Omit<ChatAdminDeps, 'pool'>): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry);
  route(
    'post',
    '/chat/admin-action',
    { kind: 'perm', permission: chatAdminAction.permission },
    {
      summary: 'A chat admin action',
      request: { body: ChatAdminActionBody },
      responses: { 201: { description: 'The applied action', schema: ChatModerationSchema } },
    },
    async (req, res) => {
      res.status(201).json(await chatAdminAction.run(deps, parseBody(chatAdminAction.schema, req), authOf(req).userId));
    },
  );
  return router;
};
