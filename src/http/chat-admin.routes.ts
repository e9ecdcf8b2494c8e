import { CHAT_ERRORS } from '../commands/chat.errors.js';
import { errorCodesOf } from './access.js';
import { Router } from 'express';
import { guardedRoutes } from './access.js';
import { chatAdminAction, type ChatAdminDeps } from '../commands/admin-operations/chat-admin-action.js';
import type { BackOfficeDeps } from './back-office.deps.js';
import { ChatAdminActionBody } from './content.schemas.js';
import { adminOperationRoute } from './admin-operation-route.js';
import { ChatModeration as ChatModerationSchema } from './openapi.schemas.js';
import { parseQuery, z } from './validate.js';
import { recentChatMessages } from '../read-models/chat/chat-messages.queries.js';

const RecentMessagesQuery = z
  .object({
    roomId: z.string().trim().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
    take: z.coerce.number().int('must be an integer').min(1, 'must be at least 1').max(100, 'must be at most 100').default(50),
  })
  .openapi('ChatRecentMessagesQuery');
const RecentMessage = z
  .object({
    id: z.string(),
    roomId: z.string(),
    userId: z.number().int(),
    username: z.string(),
    text: z.string(),
    createdAt: z.iso.datetime(),
    senderCanUseChat: z.boolean().openapi({ description: "The sender's profile flag canUseChat: false once muted" }),
  })
  .openapi('ChatRecentMessage');

/**
 * Chat moderation, applied at once: a deleted message is pushed to its room as ChatMessageUpdate. The moderators' list of a
 * room's recent messages is what they act on (delete here; mute is the user's canUseChat through PATCH /user/{id}).
 */
export const chatAdminRoutes = (deps: BackOfficeDeps & Omit<ChatAdminDeps, 'pool'>): Router => {
  const router = Router();
  const route = guardedRoutes(router, deps.auth.authenticator, deps.registry, '', errorCodesOf(CHAT_ERRORS));
  adminOperationRoute(route, '/chat/admin-action', chatAdminAction, deps, {
    summary: 'A chat admin action',
    body: ChatAdminActionBody,
    answer: { description: 'The applied action', schema: ChatModerationSchema },
  });
  route(
    'get',
    '/chat/messages',
    { kind: 'perm', permission: 'chat.admin-action' },
    {
      summary: "A room's recent visible messages, newest first, for moderation",
      addition: true,
      request: { query: RecentMessagesQuery },
      responses: { 200: { description: 'The messages', schema: z.array(RecentMessage) } },
    },
    async (req, res) => {
      const { roomId, take } = parseQuery(RecentMessagesQuery, req);
      res.json(await recentChatMessages(deps.pool, roomId, take));
    },
  );
  return router;
};
